"""WAV encoding of float audio as 16-bit PCM, byte-identical to TensorFlow's `wav_io`."""

import struct

import numpy as np

_HEADER_SIZE = 44


def float_to_int16(samples):
    """TF's FloatToInt16Sample: round(x * 32768) half away from zero, clamped to int16.

    NaN becomes 0 (TF's float-to-int conversion of NaN is undefined; x86 gives 0 here).
    """
    scaled = np.asarray(samples, dtype=np.float32) * np.float32(1 << 15)
    wide = scaled.astype(np.float64)  # exact: adding 0.5 cannot round in float64
    rounded = np.sign(wide) * np.floor(np.abs(wide) + 0.5)
    rounded = np.nan_to_num(rounded, nan=0.0)
    return np.clip(rounded, -32768, 32767).astype("<i2")


def encode_wav(audio, sample_rate):
    """Encodes audio frames as a 16-bit little-endian PCM WAV file.

    Args:
      audio: float array [frames, channels], values in [-1, 1] (clipped outside).
      sample_rate: frames per second, an integer in (0, 2^32).

    Returns:
      The WAV file as bytes.

    Raises:
      ValueError: for a sample rate or channel count WAV cannot hold, or audio too long.
    """
    audio = np.asarray(audio, dtype=np.float32)
    frames, channels = audio.shape
    if not 0 < sample_rate < 2**32:
        raise ValueError(f"sample_rate must be in (0, 2^32), got: {sample_rate}")
    if not 0 < channels < 2**16:
        raise ValueError(f"num_channels must be in (0, 2^16), got: {channels}")
    data_size = frames * channels * 2
    if _HEADER_SIZE + data_size >= 2**32:
        raise ValueError("Provided channels and frames cannot be encoded as a WAV.")
    header = b"".join([
        b"RIFF", struct.pack("<I", _HEADER_SIZE + data_size - 8), b"WAVE",
        b"fmt ", struct.pack("<IHHIIHH", 16, 1, channels, sample_rate,
                             sample_rate * 2 * channels, 2 * channels, 16),
        b"data", struct.pack("<I", data_size),
    ])
    return header + float_to_int16(audio).tobytes()
