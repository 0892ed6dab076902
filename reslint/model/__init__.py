"""The model retry rules read: :mod:`reslint.model.policy` (``RetryPolicy`` and its parts) and
:mod:`reslint.model.reader` (reading a policy's arguments from a call).

Layer: above :mod:`reslint.values` and the semantic model (:mod:`reslint.semantics.context`), below the
library adapters (``reslint.libraries``), which build policies with it.
"""
