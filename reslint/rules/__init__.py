"""The rules, one module each: the per-file rules (:mod:`reslint.rules.visitors`, which import
LibCST) and the project rules (:mod:`reslint.rules.project`, which do not). Importing this
package imports neither, so the project pass never loads LibCST."""
