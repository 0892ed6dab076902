"""The engine: a run from paths to results.

Discovery (:mod:`.discovery`, :mod:`.files`) finds the files; the per-file pass
(:mod:`.filepass`) parses each once and runs the rules, through the cache (:mod:`.cache`,
:mod:`.serial`) and worker processes (:mod:`.workers`); :mod:`.runner` drives a whole run and
its project pass; :mod:`.fixer` applies fixes; :mod:`.suppression` reads and writes ``noqa``
comments; :mod:`.positions` and :mod:`.results` carry what a pass hands on.
"""
