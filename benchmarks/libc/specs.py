"""What each function of the libc corpus takes and returns, and the inputs the native tester runs
it on. Every input respects the C standard's (and POSIX's) preconditions for the function:
valid pointers, strings NUL-terminated within their buffer, arrays at least as long as the
count says, no overlap except for memmove (swab: any n, odd ones included, whose last byte POSIX
leaves unspecified; they are kept because dizy compares exact behaviour).

Parameter kinds:
  str   const char *, a NUL-terminated string in a buffer of its own
  wstr  const wchar_t *, a NUL-terminated wide string
  mem   const void *, an array of `n` bytes (n: the function's size parameter)
  out   an output buffer (size given by the case)
  int / size / ssize / wchar   scalars
  alias a pointer into another parameter's buffer (memmove's destination)
Returns: size, int (compared exactly, and also by sign), ptr (NULL or a buffer and an offset),
void.
"""

import random

SPECS = {
    # fn: (return kind, [(C type, kind)], generator name)
    "strlen": ("size", [("const char *", "str")], "str1"),
    "strnlen": ("size", [("const char *", "mem"), ("size_t", "size")], "strn1"),
    "strchr": ("ptr", [("const char *", "str"), ("int", "int")], "strc"),
    "strrchr": ("ptr", [("const char *", "str"), ("int", "int")], "strc"),
    "memchr": ("ptr", [("const void *", "mem"), ("int", "int"), ("size_t", "size")], "memc"),
    "memrchr": ("ptr", [("const void *", "mem"), ("int", "int"), ("size_t", "size")], "memc"),
    "memcmp": ("int", [("const void *", "mem"), ("const void *", "mem"), ("size_t", "size")], "mem2"),
    "strcmp": ("int", [("const char *", "str"), ("const char *", "str")], "str2"),
    "strncmp": ("int", [("const char *", "str"), ("const char *", "str"), ("size_t", "size")], "str2n"),
    "strcasecmp": ("int", [("const char *", "str"), ("const char *", "str")], "str2case"),
    "strncasecmp": ("int", [("const char *", "str"), ("const char *", "str"), ("size_t", "size")], "str2ncase"),
    "strspn": ("size", [("const char *", "str"), ("const char *", "str")], "strset"),
    "strcspn": ("size", [("const char *", "str"), ("const char *", "str")], "strset"),
    "strpbrk": ("ptr", [("const char *", "str"), ("const char *", "str")], "strset"),
    "strstr": ("ptr", [("const char *", "str"), ("const char *", "str")], "strstr"),
    "memset": ("ptr", [("void *", "out"), ("int", "int"), ("size_t", "size")], "memset"),
    "memcpy": ("ptr", [("void *", "out"), ("const void *", "mem"), ("size_t", "size")], "memcpy"),
    "memmove": ("ptr", [("void *", "alias"), ("const void *", "mem"), ("size_t", "size")], "memmove"),
    "memccpy": ("ptr", [("void *", "out"), ("const void *", "mem"), ("int", "int"), ("size_t", "size")], "memccpy"),
    "strcpy": ("ptr", [("char *", "out"), ("const char *", "str")], "strcpy"),
    "stpcpy": ("ptr", [("char *", "out"), ("const char *", "str")], "strcpy"),
    "strncpy": ("ptr", [("char *", "out"), ("const char *", "str"), ("size_t", "size")], "strncpy"),
    "swab": ("void", [("const void *", "mem"), ("void *", "out"), ("ssize_t", "ssize")], "swab"),
    "wcschr": ("ptr", [("const wchar_t *", "wstr"), ("wchar_t", "wchar")], "wcsc"),
    "wcsrchr": ("ptr", [("const wchar_t *", "wstr"), ("wchar_t", "wchar")], "wcsc"),
    "wcslen": ("size", [("const wchar_t *", "wstr")], "wcs1"),
    "wcscmp": ("int", [("const wchar_t *", "wstr"), ("const wchar_t *", "wstr")], "wcs2"),
}

# Bytes the generated strings draw from: letters of both cases (and the bytes next to 'A'..'Z'
# and 'a'..'z', where case mapping bugs show), and bytes >= 0x80.
BYTES = b"abcAB" + bytes([0x80, 0xFF, 0xC1, 0xE1, 0x01, 0x7F, 0x40, 0x5B, 0x60, 0x7B, 0x5A, 0x7A])
LENGTHS = list(range(0, 18)) + [23, 24, 25, 31, 32, 33, 40]
SIZE_MAX = (1 << 64) - 1


class Buf:
    """An object in a buffer of its own: `data` at offset `align` of an allocation padded to a
    multiple of 8 bytes (so that an aligned word that holds a byte of the object is inside the
    allocation), the rest filled with `pad`."""

    def __init__(self, data, align=0, pad=0xA5, extra=0, unit=1, shift=0):
        self.data, self.align, self.pad, self.extra, self.unit = bytes(data), align, pad, extra, unit
        self.shift = shift  # the pointer passed is `shift` bytes into the object (memmove's source)

    def alloc(self):
        n = self.align + len(self.data) + self.extra
        return (n + 7) // 8 * 8 if n else 8

    def token(self):
        """`B<pointer offset>,<allocation size>,<allocation bytes>`, what the driver reads."""
        size, align = self.alloc(), self.align
        body = bytes([self.pad]) * align + self.data
        body += bytes([self.pad]) * (size - len(body))
        return f"B{align + self.shift},{size},{body.hex() or '-'}"

    def describe(self):
        d = self.data
        if self.unit == 4:
            vals = [int.from_bytes(d[i:i + 4], "little", signed=True) for i in range(0, len(d) - 3, 4)]
            txt = "L{" + ", ".join(hex(v) if v > 0x7e or v < 0x20 else repr(chr(v)) for v in vals) + "}"
        else:
            txt = '"' + "".join(chr(b) if 0x20 <= b < 0x7F and b not in (0x22, 0x5C) else f"\\x{b:02x}" for b in d) + '"'
        extra = f" at offset {self.shift}" if self.shift else ""
        return f"{txt} (align {self.align}{extra})"


class Alias:
    def __init__(self, of, offset):
        self.of, self.offset = of, offset

    def token(self):
        return f"@{self.of},{self.offset}"

    def describe(self):
        return f"parameter {self.of + 1}'s buffer + {self.offset}"


def s_(b):
    return bytes(b) + b"\0"


def wide(vals):
    out = b""
    for v in list(vals) + [0]:
        out += (v & 0xFFFFFFFF).to_bytes(4, "little")
    return out


def strings(rng, count, alphabet=BYTES, lengths=LENGTHS):
    out = [b""]
    for n in lengths:
        out.append(bytes(rng.choice(alphabet) for _ in range(n)))
    while len(out) < count:
        n = rng.choice(lengths)
        out.append(bytes(rng.choice(alphabet) for _ in range(n)))
    return out


def chars_for(s, rng):
    cs = {0, ord("a"), 0x80, 0xFF, 0x100 + ord("a"), -1, -128 + 1, 0x41, 0x1FF}
    if s:
        cs.add(s[0])
        cs.add(s[-1])
        cs.add(s[len(s) // 2])
        cs.add(s[len(s) // 2] | 0x100)
        cs.add(s[len(s) // 2] - 256 if s[len(s) // 2] >= 128 else s[len(s) // 2])
    return sorted(cs)


def gen_cases(fn, seed=1, scale=1):
    """The cases for `fn`: lists of parameter values (Buf, Alias or int)."""
    rng = random.Random(f"{fn}:{seed}")
    kind = SPECS[fn][2]
    pads = [0xA5, 0x00, 0x61, 0xFF]
    cases = []

    def al():
        return rng.randrange(8)

    def pad():
        return rng.choice(pads)

    if kind == "str1":
        for s in strings(rng, 60 * scale):
            for a in range(8):
                cases.append([Buf(s_(s), a, pad())])
    elif kind == "strn1":
        for s in strings(rng, 40 * scale):
            for a in range(8):
                for n in sorted({0, 1, len(s), len(s) + 1, len(s) + 5, max(len(s) - 1, 0)}):
                    # an array of n bytes that holds the string and its NUL if n is past it
                    data = (s_(s) + bytes(n))[:max(n, len(s) + 1)]
                    cases.append([Buf(data, a, pad()), n])
                cases.append([Buf(s_(s), a, pad()), SIZE_MAX])
                # an array without NUL, exactly n bytes
                if s:
                    cases.append([Buf(s, a, pad()), len(s)])
    elif kind == "strc":
        for s in strings(rng, 30 * scale):
            for c in chars_for(s, rng):
                cases.append([Buf(s_(s), al(), pad()), c])
            for a in range(8):
                cases.append([Buf(s_(s), a, rng.choice([0x61, 0xA5])), ord("a")])
    elif kind == "memc":
        for s in strings(rng, 30 * scale):
            for c in chars_for(s, rng):
                for n in sorted({len(s), max(len(s) - 1, 0)}):
                    cases.append([Buf(s[:n], al(), pad()), c, n])
            for a in range(8):
                cases.append([Buf(s, a, rng.choice([0x61, 0x00])), ord("a"), len(s)])
    elif kind in ("mem2", "str2", "str2n", "str2case", "str2ncase"):
        lower = kind in ("str2case", "str2ncase")
        for s in strings(rng, 40 * scale):
            variants = [s, s[:-1] if s else b"a", s + b"a", s + bytes([0x80])]
            if s:
                k = rng.randrange(len(s))
                for b in (0x80, 0xFF, 0x01, s[k] ^ 0x20, s[k] + 1 if s[k] < 255 else 0):
                    variants.append(s[:k] + bytes([b]) + s[k + 1:])
            if lower:
                variants.append(bytes(c ^ 0x20 if 0x41 <= (c | 0x20) - 0x20 + 0x20 <= 0x7A and chr(c).isalpha() else c for c in s))
                variants.append(s.upper())
            for t in variants:
                if kind == "mem2":
                    n = min(len(s), len(t))
                    for m in sorted({n, max(n - 1, 0), 0}):
                        cases.append([Buf(s[:m], al(), pad()), Buf(t[:m], al(), pad()), m])
                elif kind in ("str2", "str2case"):
                    cases.append([Buf(s_(s), al(), pad()), Buf(s_(t), al(), pad())])
                else:
                    for n in sorted({0, 1, len(s), len(s) + 1, max(len(s) - 1, 0), 100, SIZE_MAX}):
                        cases.append([Buf(s_(s), al(), pad()), Buf(s_(t), al(), pad()), n])
    elif kind == "strset":
        sets = [b"", b"a", b"ab", b"abc", bytes([0x80]), b"a" + bytes([0xFF]), b"B", bytes(BYTES[:8]),
                bytes(range(0x61, 0x7B)), bytes(range(0x80, 0x90))]
        for s in strings(rng, 25 * scale):
            for st in sets + [s[:3], s[1:2]]:
                cases.append([Buf(s_(s), al(), pad()), Buf(s_(st), al(), pad())])
    elif kind == "strstr":
        ab = b"ab"
        for s in strings(rng, 25 * scale) + strings(rng, 20 * scale, alphabet=ab):
            needles = [b"", s[:1], s[:2], s[:3], s[:4], s[:5], s[-3:], s[-6:], s[2:9], s + b"a",
                       b"aab", b"abab", b"aaaaa", b"abaab", bytes([0x80, 0x61])]
            for nd in needles:
                cases.append([Buf(s_(s), al(), pad()), Buf(s_(nd), al(), pad())])
    elif kind == "memset":
        for n in list(range(0, 41)) + [63, 64, 65]:
            for c in (0, ord("a"), 0x80, 0x1FF, -1, 0x12345678):
                cases.append([Buf(bytes([0x33]) * n, al(), 0xA5), c, n])
    elif kind == "memcpy":
        for s in strings(rng, 40 * scale):
            for a in range(8):
                cases.append([Buf(bytes([0x33]) * len(s), al(), 0xA5), Buf(s, a, pad()), len(s)])
    elif kind == "memmove":
        for total in (8, 16, 17, 33, 48):
            for _ in range(30 * scale):
                data = bytes(rng.randrange(256) for _ in range(total))
                n = rng.randrange(total + 1)
                src = rng.randrange(total - n + 1)
                dst = rng.randrange(total - n + 1)
                b = Buf(data, al(), pad(), shift=src)
                cases.append([Alias(1, b.align + dst), b, n])
    elif kind == "memccpy":
        for s in strings(rng, 30 * scale):
            for c in chars_for(s, rng):
                for n in sorted({len(s), max(len(s) - 1, 0)}):
                    cases.append([Buf(bytes([0x33]) * n, al(), 0xA5), Buf(s[:n], al(), pad()), c, n])
    elif kind == "strcpy":
        for s in strings(rng, 40 * scale):
            for a in range(8):
                cases.append([Buf(bytes([0x33]) * (len(s) + 1), al(), 0xA5), Buf(s_(s), a, pad())])
    elif kind == "strncpy":
        for s in strings(rng, 30 * scale):
            for n in sorted({0, 1, len(s), len(s) + 1, max(len(s) - 1, 0), len(s) + 9}):
                cases.append([Buf(bytes([0x33]) * n, al(), 0xA5), Buf(s_(s), al(), pad()), n])
    elif kind == "swab":
        for n in list(range(-2, 34)):
            for _ in range(4 * scale):
                m = max(n, 0)
                data = bytes(rng.randrange(256) for _ in range(m))
                cases.append([Buf(data, al(), pad()), Buf(bytes([0x33]) * m, al(), 0xA5), n])
    elif kind in ("wcsc", "wcs1", "wcs2"):
        vals = [0x61, 0x62, 0x41, 0x80, 0xFF, 0x100, 0x10FFFF, -1, 0x7FFFFFFF, -0x80000000, 0x161]
        ws = [[]] + [[rng.choice(vals) for _ in range(n)] for n in LENGTHS[1:]]
        while len(ws) < 40 * scale:
            ws.append([rng.choice(vals) for _ in range(rng.choice(LENGTHS))])
        for w in ws:
            wal = lambda: rng.choice([0, 4])  # noqa: E731  (wchar_t alignment)
            if kind == "wcs1":
                cases.append([Buf(wide(w), wal(), pad(), unit=4)])
            elif kind == "wcsc":
                cs = {0, 0x61, 0x161, -1, 0x80}
                if w:
                    cs |= {w[0], w[-1], w[len(w) // 2]}
                for c in sorted(cs):
                    cases.append([Buf(wide(w), wal(), pad(), unit=4), c])
            else:
                others = [w, w[:-1], w + [0x61], w + [-1]]
                if w:
                    k = rng.randrange(len(w))
                    for v in (-1, 0x7FFFFFFF, w[k] + 1, 0x80):
                        others.append(w[:k] + [v] + w[k + 1:])
                for t in others:
                    cases.append([Buf(wide(w), wal(), pad(), unit=4), Buf(wide(t), wal(), pad(), unit=4)])
    else:
        raise ValueError(kind)
    return cases
