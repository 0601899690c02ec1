//! Fuzz target: any bytes as a reply body, decoded as every response type, as an error body,
//! and through the console's page and item decoders. Nothing may panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use serde::de::DeserializeOwned;
use switchboard::api::client::{decode, parse_error_body};
use switchboard::api::model::*;
use switchboard::api::{ApiError, Page};
use switchboard::console::Tab;
use switchboard::console::record::{decode_item_body, decode_page_body};

fn one<T: DeserializeOwned>(status: u16, body: &str) {
    let _ = decode::<T>(status, body);
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let status = [200u16, 201, 400, 401, 404, 429, 500, 502][usize::from(first) % 8];
    let body = String::from_utf8_lossy(rest);
    one::<Page<Team>>(status, &body);
    one::<Page<ProviderOauthImport>>(status, &body);
    one::<Page<Callback>>(status, &body);
    one::<Page<Destination>>(status, &body);
    one::<Page<Notification>>(status, &body);
    one::<Page<Member>>(status, &body);
    one::<Page<Project>>(status, &body);
    one::<Page<TeamRole>>(status, &body);
    one::<Team>(status, &body);
    one::<ProviderOauthImport>(status, &body);
    one::<Callback>(status, &body);
    one::<Destination>(status, &body);
    one::<Notification>(status, &body);
    one::<ApiError>(status, &body);
    let e = parse_error_body(status, &body);
    let _ = e.to_string();
    let _ = e.id_text();
    for tab in Tab::ALL {
        let _ = decode_page_body(tab, status, &body);
        let _ = decode_item_body(tab, status, &body);
    }
});
