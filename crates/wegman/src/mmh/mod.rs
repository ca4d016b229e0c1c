//! MMH / NMH (Halevi & Krawczyk, FSE 1997), byte-exact to shared/spec/mmh.md.
