"""Configuration, below everything but policy and code: ``paths`` (the user's folders),
``settings`` (the typed ``Config`` read from ``config.toml``), ``trusted_folders`` (a
project's own rules, counted only once trusted), ``toml_edit`` (changing ``config.toml``
in place), ``credentials`` (keys typed in the settings screen), ``providers`` (the
provider catalogue)."""
