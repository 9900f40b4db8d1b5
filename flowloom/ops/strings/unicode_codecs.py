"""The Unicode encodings of TF's unicode ops, as pure functions of bytes and code points.

Decoding yields (byte offset, code point) pairs, with None for each ill-formed part: in UTF-8
a maximal subpart (a lead byte and the continuation bytes that fit it, Unicode's
recommended practice, which ICU and so TF follow), in UTF-16 an unpaired surrogate or an odd
last byte, in UTF-32 a unit beyond U+10FFFF, a surrogate or a short tail. Encoding writes
what TF's ICU calls write: in UTF-8 a surrogate code point becomes U+FFFD; UTF-16 and UTF-32
write it as it is.
"""

import codecs
import re

import numpy as np

# Unicode's well-formed UTF-8 (Table 3-7): lead byte -> (sequence length, allowed range of
# the second byte); later bytes are 0x80..0xBF.
_UTF8_LEAD = {}
for _b in range(0xC2, 0xE0):
    _UTF8_LEAD[_b] = (2, 0x80, 0xBF)
for _b in range(0xE0, 0xF0):
    _UTF8_LEAD[_b] = (3, 0xA0 if _b == 0xE0 else 0x80, 0x9F if _b == 0xED else 0xBF)
for _b in range(0xF0, 0xF5):
    _UTF8_LEAD[_b] = (4, 0x90 if _b == 0xF0 else 0x80, 0x8F if _b == 0xF4 else 0xBF)


def _utf8_slow(data):
    i, n = 0, len(data)
    while i < n:
        b = data[i]
        if b < 0x80:
            yield i, b
            i += 1
            continue
        lead = _UTF8_LEAD.get(b)
        if lead is None:
            yield i, None
            i += 1
            continue
        length, low, high = lead
        cp, k = b & (0x7F >> length), 1
        while k < length and i + k < n and (low if k == 1 else 0x80) <= data[i + k] <= (
                high if k == 1 else 0xBF):
            cp = (cp << 6) | (data[i + k] & 0x3F)
            k += 1
        yield i, (cp if k == length else None)
        i += k


def _decode_utf8(data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return list(_utf8_slow(data))
    raw = np.frombuffer(data, dtype=np.uint8)
    starts = np.flatnonzero((raw & 0xC0) != 0x80)
    points = np.frombuffer(text.encode("utf-32-le"), dtype="<u4")
    return list(zip(starts.tolist(), points.tolist()))


def _decode_utf16(data, order):
    out, i, n = [], 0, len(data)
    while i + 1 < n:
        unit = int.from_bytes(data[i:i + 2], order)
        if 0xD800 <= unit < 0xDC00 and i + 3 < n:
            low = int.from_bytes(data[i + 2:i + 4], order)
            if 0xDC00 <= low < 0xE000:
                out.append((i, 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)))
                i += 4
                continue
        out.append((i, None if 0xD800 <= unit < 0xE000 else unit))
        i += 2
    if i < n:
        out.append((i, None))
    return out


def _decode_utf32(data, order):
    out, i, n = [], 0, len(data)
    while i + 3 < n:
        unit = int.from_bytes(data[i:i + 4], order)
        out.append((i, None if unit > 0x10FFFF or 0xD800 <= unit < 0xE000 else unit))
        i += 4
    if i < n:
        out.append((i, None))
    return out


def _decode_latin1(data):
    return list(enumerate(data))


_DECODERS = {
    "utf8": _decode_utf8,
    "utf16be": lambda d: _decode_utf16(d, "big"), "utf16le": lambda d: _decode_utf16(d, "little"),
    "utf32be": lambda d: _decode_utf32(d, "big"), "utf32le": lambda d: _decode_utf32(d, "little"),
    "iso88591": _decode_latin1, "latin1": _decode_latin1, "l1": _decode_latin1,
}


_PYTHON_CODECS = {"utf8": "utf-8", "utf16be": "utf-16-be", "utf16le": "utf-16-le",
                  "utf32be": "utf-32-be", "utf32le": "utf-32-le", "iso88591": "latin-1",
                  "latin1": "latin-1", "l1": "latin-1"}
_OUTPUT_CODECS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}


_CONTROL = re.compile("[\x00-\x1f]")


def well_formed_transcoder(input_encoding, output_encoding, allow_controls):
    """A function re-encoding bytes by Python's codecs when they are well-formed (their
    strict decoders refuse what `decoder(name)` marks ill-formed) and, unless
    `allow_controls`, hold no C0 control; it returns None for any other input, or this
    returns None when Python's codecs do not cover the encodings."""
    source = _PYTHON_CODECS.get(_key(input_encoding))
    target = _OUTPUT_CODECS.get(output_encoding)
    if source is None or target is None:
        return None

    def transcode(data):
        try:
            text = data.decode(source)
        except UnicodeDecodeError:
            return None
        if not allow_controls and _CONTROL.search(text):
            return None
        return text.encode(target)
    return transcode


def _key(name):
    # ICU compares converter names ignoring case and the separators - _ and space.
    return re.sub(r"[-_ ]", "", name).lower()


def decoder(name):
    """The decoding function of the encoding `name`, or None if it is no encoding; raises
    NotImplementedError for an encoding TF's ICU knows that flowloom does not decode."""
    fn = _DECODERS.get(_key(name))
    if fn is not None:
        return fn
    try:
        codecs.lookup(name)
    except LookupError:
        return None
    raise NotImplementedError(f"Unicode decoding from {name!r} (flowloom decodes UTF-8, "
                              "UTF-16-BE/LE, UTF-32-BE/LE and ISO-8859-1)")


def encode(points, encoding):
    """The code points `points` (each valid, surrogates allowed) in `encoding`, one of
    "UTF-8", "UTF-16-BE", "UTF-32-BE"."""
    if encoding == "UTF-32-BE":
        return np.asarray(points, dtype=">u4").tobytes()
    if encoding == "UTF-8":
        return "".join(chr(0xFFFD if 0xD800 <= p < 0xE000 else p) for p in points).encode()
    units = []
    for p in points:
        if p >= 0x10000:
            units += [0xD800 + ((p - 0x10000) >> 10), 0xDC00 + ((p - 0x10000) & 0x3FF)]
        else:
            units.append(p)
    return np.asarray(units, dtype=">u2").tobytes()
