# What every data, key, nonce and tag argument accepts: any object with the
# buffer protocol (bytes, bytearray, memoryview, array.array, numpy arrays,
# mmap) -- collections.abc.Buffer from Python 3.12 on, typing_extensions'
# backport before.
from typing_extensions import Buffer as Buffer
