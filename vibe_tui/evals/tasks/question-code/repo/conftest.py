# makes the repository root importable for plain `pytest`
