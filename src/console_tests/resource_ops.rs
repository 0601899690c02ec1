//! Every resource operation (`resource::ops`) on the console, from its typed value alone: its
//! default key on a selected row asks its question, `y` sends exactly the request the operation
//! builds for that row, the reply is toasted with its word and landed on, and a read-only
//! profile refuses it. A new operation is covered here without a test of its own.
use crate::common::*;
use serde_json::json;
use switchboard::console::forms::ops::WriteOp;
use switchboard::console::{ApiCmd, ApiReply, App, Msg, Pane, Tab};
use switchboard::resource::ops::{self, OpArgs};

fn app_on(tab: Tab) -> App {
    let mut app = started_app(120, 30);
    answer_all(&mut app);
    // Its generation's tabs (pulsar's are shown already), then its tab's digit.
    app.show_generation(tab.home());
    answer_all(&mut app);
    app.apply(switchboard::console::Msg::Key(
        crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Char(
            char::from_digit(tab.number() as u32, 10).unwrap_or('1'),
        )),
    ));
    answer_all(&mut app);
    app
}

fn writes(app: &mut App) -> Vec<(u64, WriteOp)> {
    app.take_requests()
        .into_iter()
        .filter_map(|r| match r.cmd {
            ApiCmd::Write(op) => Some((r.req_id, *op)),
            _ => None,
        })
        .collect()
}

#[test]
fn every_operation_asks_sends_its_request_and_lands_on_the_reply() {
    for op in ops::all() {
        let mut app = app_on(op.resource);
        if let Some(record) = app.state.current().list.selected()
            && switchboard::console::views::op_form(op.id(), record).is_some()
        {
            // Its inputs come first: covered with its resource's own test.
            continue;
        }
        let record = app
            .state
            .current()
            .list
            .selected()
            .cloned()
            .unwrap_or_else(|| panic!("{}: a row", op.verb));
        app.apply(ch(op.key));
        let s = screen(&app);
        assert!(s.contains(op.title), "{}: its question\n{s}", op.verb);
        assert!(
            writes(&mut app).is_empty(),
            "{}: nothing sent unasked",
            op.verb
        );
        if switchboard::console::views::typed_confirm(op.id()) {
            // Its question asks for the name typed.
            for c in record.item.name().chars() {
                app.apply(ch(c));
            }
            app.apply(key(crossterm::event::KeyCode::Enter));
        } else {
            app.apply(ch('y'));
        }
        let sent = writes(&mut app);
        let want = (op.request)(&record.item, &OpArgs::new()).expect("a request for the row");
        let [(req_id, w)] = sent.as_slice() else {
            panic!("{}: one write expected: {sent:?}", op.verb);
        };
        assert_eq!(w.request(), want, "{}", op.verb);

        // The reply: an item of the resource with a new id.
        let mut raw = (*record.raw).clone();
        let new_id = format!("{}written", op.resource.id_prefix());
        raw["id"] = json!(new_id);
        let reply =
            switchboard::console::record::decode_item_body(op.resource, 200, &raw.to_string())
                .expect("item");
        app.apply(Msg::Api {
            req_id: *req_id,
            pane: Pane::Form(0),
            result: Ok(ApiReply::Item(reply)),
        });
        let toasts: Vec<String> = app.state.toasts.iter().map(|t| t.text.clone()).collect();
        assert!(
            toasts.iter().any(|t| t.ends_with(op.done)),
            "{}: {toasts:?}",
            op.verb
        );
        let shown = app.state.current().detail.as_ref().map(|d| d.id.clone());
        assert_eq!(
            shown.as_deref(),
            Some(new_id.as_str()),
            "{}: lands",
            op.verb
        );
        assert_eq!(
            app.state.forms.land_on,
            Some((op.resource, new_id.clone())),
            "{}: the list lands on it",
            op.verb
        );

        // Read-only: refused, nothing asked or sent.
        let mut app = app_on(op.resource);
        app.state.read_only = true;
        app.apply(ch(op.key));
        assert!(app.state.confirm.is_none(), "{}", op.verb);
        assert!(writes(&mut app).is_empty(), "{}", op.verb);
    }
}

#[test]
fn every_operation_has_its_key_free_on_its_tab() {
    let km = switchboard::console::keymap::Keymap::default();
    for op in ops::all() {
        let ev = crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Char(op.key));
        let bound = km.input(ev);
        assert_eq!(
            bound.action(),
            Some(switchboard::console::keymap::Action::Op(op.id())),
            "{}: {} is taken first by another action",
            op.verb,
            op.key
        );
    }
}
