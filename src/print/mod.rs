//! IR -> `.visaasm` text (being built).
