//! CWC reference model.
