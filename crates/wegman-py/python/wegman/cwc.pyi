from typing import Optional
from wegman._types import Buffer

NONCE_SIZE: int
MAX_TAG_SIZE: int
MAX_BYTES: int

class CWC:
    key_size: int
    def __init__(self, key: Buffer) -> None: ...
    @staticmethod
    def generate_key(bit_length: int) -> bytes: ...
    def encrypt(
        self, nonce: Buffer, data: Buffer, associated_data: Optional[Buffer], tag_len: int = 16, *, threads: int = 1
    ) -> bytes: ...
    def decrypt(
        self, nonce: Buffer, data: Buffer, associated_data: Optional[Buffer], tag_len: int = 16, *, threads: int = 1
    ) -> bytes: ...
