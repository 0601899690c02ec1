//! `Ctrl-F` on a newer generation's list (event-destinations' Deliveries, callback-destinations'
//! Notifications): the same walk as `notifications search` there ([`crate::api::newer_search`]:
//! the list's server filters first, each item read whole by id), answered a page at a time.
use serde_json::Value;

use super::{Ended, MAX_MATCHES, SearchCmd, SearchReply, bound_line};
use crate::api::Error;
use crate::api::jq::{Doc, Verdict};
use crate::api::newer_requests::{CallbackNotificationFilter, DeliveryFilter};
use crate::api::newer_search::{Source, Walk, read_all};
use crate::api::search::{self, Tally};
use crate::api::{Client, model::time};
use crate::console::record::decode_item;
use crate::console::tab::Tab;

/// Walks `cmd.tab`'s list, sending each document to the filter's thread (`docs`) and reading
/// its verdict back; answers once per page, then once more (unless stopped).
pub(super) async fn walk(
    client: &Client,
    cmd: &SearchCmd,
    docs: std::sync::mpsc::Sender<Doc>,
    mut verdicts: tokio::sync::mpsc::UnboundedReceiver<Result<Verdict, String>>,
    mut reply: impl FnMut(Result<SearchReply, Error>),
) {
    let f = &cmd.filter;
    let (source, deliveries, notifications) = if cmd.tab == Tab::CallbackNotifications {
        (
            Source::Callbacks(f.callback_ids.clone()),
            DeliveryFilter::default(),
            CallbackNotificationFilter {
                destination_ids: f.destination_ids.clone(),
                statuses: f.statuses.clone(),
            },
        )
    } else {
        (
            Source::Deliveries,
            DeliveryFilter {
                statuses: f.statuses.clone(),
                event_ids: f.event_ids.clone(),
                event_destination_ids: f.destination_ids.clone(),
                ..DeliveryFilter::default()
            },
            CallbackNotificationFilter::default(),
        )
    };
    let mut walk = Walk::new(client, source, deliveries, notifications);
    let mut tally = Tally::default();
    let ended: Option<Ended> = 'walk: loop {
        let page = tokio::select! {
            r = walk.next(client) => r,
            () = cmd.stop.asked() => break Some(Ended::Stopped),
        };
        let page = match page {
            Ok(p) if p.is_empty() => break None,
            Ok(p) => p,
            Err(e @ Error::TooManyPages { .. }) => break Some(Ended::Why(bound_line(&e))),
            Err(e) => return reply(Err(e)),
        };
        let mut rows = Vec::new();
        for listed in &page {
            tally.examined += 1;
            if let Some(t) = listed.created() {
                tally.back_to = Some(time::format(&t));
            }
        }
        let got = tokio::select! {
            r = read_all(client, page) => r,
            () = cmd.stop.asked() => break 'walk Some(Ended::Stopped),
        };
        for one in got {
            let (v, doc): (Value, Doc) = match one {
                Ok(Some(found)) => found,
                Ok(None) => continue,
                Err(e) => return reply(Err(e)),
            };
            if docs.send(doc).is_err() {
                break 'walk Some(Ended::Why("the filter stopped".into()));
            }
            let verdict = tokio::select! {
                v = verdicts.recv() => v,
                () = cmd.stop.asked() => break 'walk Some(Ended::Stopped),
            };
            match verdict {
                Some(Ok(verdict)) => {
                    if search::count(&mut tally, verdict)
                        && let Ok(r) = decode_item(cmd.tab, v, 200)
                    {
                        rows.push(r);
                    }
                }
                Some(Err(why)) => break 'walk Some(Ended::Why(why)),
                None => break 'walk Some(Ended::Why("the filter stopped".into())),
            }
        }
        reply(Ok(SearchReply::Found {
            tally: tally.clone(),
            rows,
        }));
        if tally.matched >= MAX_MATCHES {
            break Some(Ended::Why(format!("the first {MAX_MATCHES} matches kept")));
        }
    };
    drop(docs);
    let done = |why| {
        Ok(SearchReply::Done {
            tally: tally.clone(),
            why,
        })
    };
    match ended {
        Some(Ended::Stopped) => {}
        Some(Ended::Why(why)) => reply(done(Some(why))),
        None => reply(done(None)),
    }
}
