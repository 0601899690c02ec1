//! The actions this module handles (the keymap's list: `console::delivery_key`).
pub(crate) use crate::console::delivery_key::DeliveryKey;
