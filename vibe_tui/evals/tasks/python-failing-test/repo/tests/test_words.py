from textstats.words import count_words, longest_word


def test_counts_simple_words():
    assert count_words("one two three") == 3


def test_counts_words_across_lines_and_tabs():
    assert count_words("one two\nthree\tfour") == 4


def test_empty_text_has_no_words():
    assert count_words("   ") == 0


def test_longest_word():
    assert longest_word("a bb ccc") == "ccc"
