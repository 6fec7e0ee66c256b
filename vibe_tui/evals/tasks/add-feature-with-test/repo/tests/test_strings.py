from textutils.strings import initials, slugify


def test_slugify():
    assert slugify("Hello, World!") == "hello-world"


def test_initials():
    assert initials("ada lovelace") == "AL"
