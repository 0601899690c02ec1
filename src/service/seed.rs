//! Seed data: the organization every database has, and the demo world from `assets/seed/`.
use super::Seed;
use super::ids::new_id;
use super::records::{DestinationRec, kind};
use super::store::{Db, StoreError};

/// Creates the organization (and the demo world) in an empty database, and points the demo
/// destinations at this run's address.
pub fn bootstrap(db: &Db, seed: Seed, base_url: &str) -> Result<(), StoreError> {
    if db.meta("organization_id")?.is_none() {
        db.transaction(|db| {
            db.set_meta("organization_id", &new_id("org"))?;
            db.set_meta("instance_id", &new_id("ins"))?;
            if seed == Seed::Demo {
                demo(db, base_url)?;
            }
            Ok(())
        })?;
    }
    retarget_receivers(db, base_url)
}

fn demo(_db: &Db, _base_url: &str) -> Result<(), StoreError> {
    Ok(())
}

/// The built-in receiver follows the service to whatever port it runs on this time.
fn retarget_receivers(db: &Db, base_url: &str) -> Result<(), StoreError> {
    for mut rec in db.all::<DestinationRec>(kind::DESTINATION)? {
        let Some(w) = rec.destination.webhook_destination.as_mut() else {
            continue;
        };
        let Some(pos) = w.url.find("/_receiver/") else {
            continue;
        };
        let moved = format!("{base_url}{}", w.url.get(pos..).unwrap_or_default());
        if moved != w.url && is_loopback(&w.url) {
            w.url = moved;
            db.put(kind::DESTINATION, &rec.destination.id.clone(), &rec)?;
        }
    }
    Ok(())
}

fn is_loopback(u: &str) -> bool {
    url::Url::parse(u).is_ok_and(|u| {
        matches!(
            u.host_str(),
            Some("127.0.0.1") | Some("localhost") | Some("[::1]")
        )
    })
}
