#!/usr/bin/env python3
"""The inputs the harness reads: SPAJSONCrossCheckTests' table (same names,
same bytes), then each fuzz piece of ConfigFuzzTests in the places a piece can
land (inside a bare word, inside a string, as a value, at the top level).
Prints `name<TAB>hex` lines."""

def b(text):
    return text.encode() if isinstance(text, str) else bytes(text)

CASES = [
    ("strict JSON", '{ "a": 1, "b": [true, false, null], "c": { "d": "e" } }'),
    ("PipeWire style", "a = 1\nb = [ x y ]\nc = { d = e }"),
    ("empty input", ""),
    ("only a comment", "# nothing here\n"),
    ("empty braces", "{ }"),
    ("empty containers", "a = {} b = [] c = [ {} [] ]"),
    ("separators are whitespace in objects", "{ a b c d }"),
    ("commas in arrays", "a = [ 1, 2 , 3 ]"),
    ("= and : in arrays", "a = [ 1 = 2 : 3 , 4 ]"),
    ("runs of commas", ",,a,,=,,b,, c = = d"),
    ("colon after a value", "a = 1 : b = 2"),
    ("leading separator", ": a = 1"),
    ("comments end at \\n and \\r", "# x\na = 1 # y\rb = 2 # z\n"),
    ("CRLF and tabs", "a\t=\t1\r\nb = 2\r\n"),
    ("NUL between tokens", "\0a =\0 1 \0"),
    ("quoted keys", '"a b" = 1 "c\\"d" = 2'),
    ("keyword-like keys", "true = 1 null = 2 3 = 4"),
    ("keywords", "a = null b = true c = false"),
    ("quoted keywords are strings", 'a = "null" b = "true" c = "false"'),
    ("numbers", "a = [ 0 -1 +2 1.5 .5 5. 1e3 1E-2 -0.0 00012 0.20 1e400 ]"),
    ("number lookalikes are strings", "a = [ 1e 1.2.3 0x10 inf nan - + . e 1-2 12ab ]"),
    ("quoted number is a string", 'a = "1.5"'),
    ("regex as a bare word", "role = ~^(Music|Movie)$"),
    ("dotted bare words", "application.process.binary = org.gnome.Music-2"),
    ("hash after a bare word", "a = 1#c b = x#y"),
    ("hash after a bare word, then a line", "a = 1#c b = 2\nc = x#y\nd = 3"),
    ("brace inside a bare word", "a = x{y b = 1"),
    ("quote after a bare word", 'a = x"y"'),
    ("quote after a bare word, in pairs", 'a = x"y" "z"'),
    ("string then bare word", 'a = "x"y = 1'),
    ("backslash in a bare word", "a = x\\y"),
    ("escapes", 'a = "q\\"b\\\\s\\/n\\nt\\tr\\rb\\bf\\f"'),
    ("unicode escapes", 'a = "\\u00e9\\u20AC\\ud83d\\ude00"'),
    ("raw UTF-8 in a string", 'a = "é€😀"'),
    ("raw UTF-8 in a bare word", "b = música"),
    ("raw UTF-8 in a key", "música = 1"),
    ("deep nesting", "a = " + "[" * 40 + "]" * 40),
    ("key without value", "a = 1 b"),
    ("key without value in an object", "x = { a = 1 b }"),
    ("container as a key", "{ [ 1 ] = 2 }"),
    ("unknown escape", 'a = "x\\qy"'),
    ("raw tab in a string", 'a = "x\ty"'),
    ("raw newline in a string", 'a = "x\ny"'),
    ("raw control character in a string", 'a = "x\x01y"'),
    ("DEL in a string", 'a = "x\x7fy"'),
    ("DEL in a bare word", "a = x\x7fy"),
    ("control character in a bare word", "a = x\x01y"),
    ("continuation byte as a lead", b(b'a = "' + bytes([0x80, 0x22]))),
    ("byte 0xFF in a string", b(b'a = "' + bytes([0xFF, 0x22]))),
    ("unclosed nested object", "a = { b = { c = 1 }"),
    ("unclosed nested array", "a = [ 1 2"),
    ("comment at the very end without a newline", "a = 1 # z"),
    ("only a comment without a newline", "# z"),
    ("unterminated string at the end", 'a = "abc'),
    ("unclosed top-level brace", "{ a = 1"),
    ("] closes {", "{ a = 1 ]"),
    ("} closes [", "a = [ 1 } b = 2"),
    ("] closes a nested {", "a = { b = 1 ] c = 2"),
    ("stray closer ends the input", "a = 1 } b = 2"),
    ("text after the top-level object", "{ a = 1 } b = 2"),
    ("\\u without hex digits", 'a = "\\u12G4"'),
    ("lone high surrogate", 'a = "x\\uD800y"'),
    ("lone low surrogate", 'a = "x\\uDC00y"'),
    ("\\u0000 cuts the string", 'a = "x\\u0000y"'),
    ("overlong UTF-8", b(b'a = "x' + bytes([0xC1, 0x81, 0x22]))),
    ("encoded surrogate", b(b'a = "' + bytes([0xED, 0xA0, 0x80, 0x22]))),
    ("invalid UTF-8 in a bare word", b(b"a = x" + bytes([0xFF]))),
    ("NUL inside a bare word", "a = x\0y"),
    ("NUL after a bare word", "a = x\0b = 2"),
    ("backslash as a value", "a = \\"),
    ("colon in a nested object after a value", "a = { b = 1 : c = 2 }"),
    ("repeated key separators", "a = : = 1"),
    ("comma between key and value", "a , 1"),
    ("separator before a closer", "a = { b = 1 = }"),
    ("separator after an array value", "a = [ 1 ] = b = 2"),
    ("string right after a string", '"a""b"'),
    ("nesting 200 deep", "a = " + "[" * 200 + "]" * 200),
    ("nesting 600 deep", "a = " + "[" * 600 + "]" * 600),
]

PIECES = ["{", "}", "[", "]", '"', "\\", "=", ":", ",", " ", "\n", "\r", "\t", "#", "a", "key", "1", "-2.5e3", ".5",
          "null", "true", "false", "~^x$", "\\u00e9", "\\ud83d", "\\ude00", "\\u0000", "\\n", "é", "😀", "override.",
          "duck.level", "0x10"] + [bytes([0]), bytes([0x7F]), bytes([0x80]), bytes([0xC3]), bytes([0xED, 0xA0, 0x80]),
                                   bytes([0xFF]), bytes([0x01])]

def pieces():
    for p in PIECES:
        p = b(p)
        shown = p.decode(errors="backslashreplace").encode("unicode_escape").decode()
        yield (f"piece {shown} in a bare word", b"a = x" + p + b"y\n")
        yield (f"piece {shown} in a string", b'a = "x' + p + b'y"\n')
        yield (f"piece {shown} as a value", b"a = " + p + b"\n")
        yield (f"piece {shown} after a value", b"a = 1 " + p + b"\n")

for name, data in CASES + list(pieces()):
    print(f"{name}\t{b(data).hex()}")
