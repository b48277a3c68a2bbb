from verifier.textlines import source_lines


def test_lines_split_like_github():
    assert source_lines("a\nb\n") == ["a", "b"]
    assert source_lines("a\nb") == ["a", "b"]
    assert source_lines("a\fb\nc\u2028d\n") == ["a\fb", "c\u2028d"]  # no extra lines
    assert source_lines("a\r\nb\r\n") == ["a", "b"]
    assert source_lines("") == []
