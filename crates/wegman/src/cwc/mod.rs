//! CWC-AES (Kohno, Viega & Whiting), §3.
