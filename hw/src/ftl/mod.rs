//! The FTL remap controller (issue 4), so far only its golden model of flash
//! geometry and garbage collection ([`flash`]); the controller's hardware,
//! its logical-to-physical map and the whole core are not built yet.
pub mod flash;
