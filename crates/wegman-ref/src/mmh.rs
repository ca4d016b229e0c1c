//! MMH / NMH reference model.
