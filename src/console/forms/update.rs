//! The forms' part of the router: a write key opens a dialog, the dialog takes every key while
//! open, clicks land on its fields, and the server's answers close it or mark its fields.
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::field::{Field, new_line};
use super::ops::WriteOp;
use super::picker::Items;
use super::view::FormHit;
use super::{Asking, Dialog, FormsState, Kind, Phase};
use crate::api::Error;
use crate::console::confirm::{Confirm, Subject};
use crate::console::keymap::Action;
use crate::console::msg::{ApiCmd, ApiReply, Effect, Pane};
use crate::console::pane::{load_detail, load_list};
use crate::console::power::ConfirmMode;
use crate::console::record::Record;
use crate::console::state::{Anchor, Core, DetailPane, ToastKind};
use crate::console::tab::Tab;
use crate::console::views;

/// The form's own message when fields are marked (cleared by the next edit).
const FIX_FIELDS: &str = "Please fix the marked fields";

/// Opens a dialog, starting its lookups.
fn open(
    forms: &mut FormsState,
    cx: &mut Core,
    mode: ConfirmMode,
    mut dialog: Dialog,
) -> Vec<Effect> {
    let mut effects = Vec::new();
    for (what, at) in std::mem::take(&mut dialog.wanted) {
        let req_id = cx.next_req_id();
        dialog.lookups.push((req_id, at));
        effects.push(Effect::Api {
            req_id,
            pane: Pane::Form(u8::try_from(at + 1).unwrap_or(u8::MAX)),
            cmd: ApiCmd::Lookup(what),
        });
    }
    if dialog.phase == Phase::Confirm {
        cx.confirm = Some(question(mode, &dialog));
    }
    forms.dialog = Some(dialog);
    effects
}

/// The confirmation of a dialog's write: yes/no, or under `confirm = "type-name"` the item's
/// name typed.
fn question(mode: ConfirmMode, d: &Dialog) -> Confirm {
    if mode != ConfirmMode::TypeName && !d.typed {
        return Confirm::yes_no(&d.title, &d.confirm, Subject::FormWrite);
    }
    let expected = views::confirm_name(d).unwrap_or_else(|| d.confirm_name.clone());
    Confirm::name(&d.title, &d.confirm, expected, Subject::FormWrite)
}

/// The confirmation's answer: yes sends the write; no goes back to the fields (or closes a
/// dialog that is only the question).
pub(crate) fn answered(
    forms: &mut FormsState,
    cx: &mut Core,
    asking: Asking<'_>,
    yes: bool,
) -> Vec<Effect> {
    if yes {
        return send(forms, cx, asking);
    }
    if let Some(d) = forms.dialog.as_mut() {
        if d.fields.is_empty() {
            forms.dialog = None;
        } else {
            d.phase = Phase::Editing;
        }
    }
    Vec::new()
}

/// The item a write key acts on: the open detail's, else the selected row.
fn subject(forms: &FormsState, cx: &Core) -> Option<Record> {
    let ts = cx.current();
    match &ts.detail {
        Some(d) => d.record.clone(),
        None if landing(forms, cx.tab) => None,
        None => ts.list.selected().cloned(),
    }
}

/// A write key (`c`, `e`, `d`, `p`, `x`, `m`, `M`) outside any dialog.
pub(crate) fn on_action(
    forms: &mut FormsState,
    cx: &mut Core,
    asking: Asking<'_>,
    action: Action,
) -> Vec<Effect> {
    let tab = cx.tab;
    let needs_item = !matches!(action, Action::CREATE);
    let item = subject(forms, cx);
    if needs_item && item.is_none() {
        let text = match &forms.land_on {
            // The selected row is not yet the item just written: nothing to act on until it is.
            Some((t, id)) if *t == tab => format!("Loading the page that holds {id}…"),
            _ => "Select an item first".to_string(),
        };
        cx.toast(ToastKind::Info, text);
        return Vec::new();
    }
    // The tab's resource's console module says which dialog the key opens.
    let dialog = views::dialog(tab, action, item.as_ref().map(|r| &r.item));
    match dialog {
        Some(mut d) if views::write_spec(&d).members => {
            crate::console::members::fill_dialog(&mut d, &cx.members);
            let mut effects = open(forms, cx, asking.mode, d);
            effects.extend(crate::console::members::want(cx));
            effects
        }
        Some(d) => open(forms, cx, asking.mode, d),
        None => {
            let what = action.describe();
            cx.toast(
                ToastKind::Info,
                format!("The {} tab has no “{what}”", tab.title()),
            );
            Vec::new()
        }
    }
}

/// A resource operation's key (`resource::ops`): its question about the item, then its request,
/// both from the operation's typed value; no resource is named here.
pub(crate) fn on_op(
    forms: &mut FormsState,
    cx: &mut Core,
    asking: Asking<'_>,
    id: crate::resource::ops::OpId,
) -> Vec<Effect> {
    let Some(op) = id.op() else {
        return Vec::new();
    };
    let Some(record) = subject(forms, cx).filter(|r| r.item.kind() == op.resource) else {
        let text = match &forms.land_on {
            Some((t, id)) if *t == cx.tab => format!("Loading the page that holds {id}…"),
            _ => "Select an item first".to_string(),
        };
        cx.toast(ToastKind::Info, text);
        return Vec::new();
    };
    // An operation with inputs asks for them first (its resource's console module says which).
    if let Some((fields, lookups)) = views::op_form(id, &record) {
        let question = (op.question)(&record.item);
        let mut d = Dialog::new(op.title, Kind::OpForm(id, Box::new(record)), fields);
        d.confirm = question;
        d.wanted = lookups;
        return open(forms, cx, asking.mode, d);
    }
    let req = match (op.request)(&record.item, &Default::default()) {
        Ok(req) => req,
        Err(why) => {
            cx.toast(ToastKind::Error, why);
            return Vec::new();
        }
    };
    let mut d = Dialog::new(op.title, Kind::Op(id, req), Vec::new());
    d.confirm = (op.question)(&record.item);
    d.confirm_name = record.item.name();
    d.typed = views::typed_confirm(id);
    d.phase = Phase::Confirm;
    open(forms, cx, asking.mode, d)
}

fn is_ctrl(key: &KeyEvent, c: char) -> bool {
    key.modifiers.contains(KeyModifiers::CONTROL)
        && matches!(key.code, KeyCode::Char(k) if k.eq_ignore_ascii_case(&c))
}

/// A key while a dialog is open: the dialog takes every key (Ctrl-C is handled before).
pub(crate) fn on_key(
    forms: &mut FormsState,
    cx: &mut Core,
    asking: Asking<'_>,
    key: KeyEvent,
) -> Vec<Effect> {
    let Some(d) = forms.dialog.as_mut() else {
        return Vec::new();
    };
    match d.phase {
        Phase::Submitting(_) => Vec::new(),
        Phase::Discard => {
            match key.code {
                KeyCode::Char('y' | 'Y') => forms.dialog = None,
                KeyCode::Char('n' | 'N') | KeyCode::Esc => d.phase = Phase::Editing,
                _ => {}
            }
            Vec::new()
        }
        // The confirmation layer, above the dialog, answers.
        Phase::Confirm => Vec::new(),
        Phase::Editing => editing_key(forms, cx, asking, key),
    }
}

fn editing_key(
    forms: &mut FormsState,
    cx: &mut Core,
    asking: Asking<'_>,
    key: KeyEvent,
) -> Vec<Effect> {
    let Some(d) = forms.dialog.as_mut() else {
        return Vec::new();
    };
    let n = d.fields.len();
    match key.code {
        KeyCode::Esc => {
            if d.is_dirty() {
                d.phase = Phase::Discard;
            } else {
                forms.dialog = None;
            }
            Vec::new()
        }
        _ if is_ctrl(&key, 's') => submit(forms, cx, asking),
        KeyCode::Tab => {
            d.focus = (d.focus + 1) % n.max(1);
            Vec::new()
        }
        KeyCode::BackTab => {
            d.focus = (d.focus + n.max(1) - 1) % n.max(1);
            Vec::new()
        }
        KeyCode::Enter => {
            let at = d.focus;
            if let Some(f) = d.fields.get_mut(at)
                && new_line(f)
            {
                return Vec::new();
            }
            if at + 1 >= n {
                submit(forms, cx, asking)
            } else {
                d.focus = at + 1;
                Vec::new()
            }
        }
        _ => {
            let at = d.focus;
            if let Some(f) = d.fields.get_mut(at)
                && f.handle_key(&key)
                && d.message.as_deref() == Some(FIX_FIELDS)
            {
                d.message = None;
            }
            views::after_change(d);
            Vec::new()
        }
    }
}

/// A click on an open form: focus a field (and pick a choice's option), save or cancel.
pub(crate) fn click(
    forms: &mut FormsState,
    cx: &mut Core,
    asking: Asking<'_>,
    hit: FormHit,
) -> Vec<Effect> {
    let Some(d) = forms.dialog.as_mut() else {
        return Vec::new();
    };
    match hit {
        FormHit::Save => submit(forms, cx, asking),
        FormHit::Cancel => editing_key(
            forms,
            cx,
            asking,
            KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE),
        ),
        FormHit::Field(i, option) => {
            d.focus = i.min(d.fields.len().saturating_sub(1));
            if let Some(k) = option
                && let Some(f) = d.fields.get_mut(i)
                && f.choose(k)
            {
                if d.message.as_deref() == Some(FIX_FIELDS) {
                    d.message = None;
                }
                views::after_change(d);
            }
            Vec::new()
        }
    }
}

/// Validates the form; asks to confirm, or sends the write.
fn submit(forms: &mut FormsState, cx: &mut Core, asking: Asking<'_>) -> Vec<Effect> {
    let Some(d) = forms.dialog.as_mut() else {
        return Vec::new();
    };
    d.message = None;
    // Fresh checks: a problem shown earlier may be fixed by a change elsewhere (the choice).
    for f in &mut d.fields {
        f.revalidate();
    }
    let fine = d.check_fields();
    let op = build(d).filter(|_| fine && d.fields.iter().all(|f| f.error.is_none()));
    if op.is_none() {
        if d.message.is_none() {
            d.message = Some(FIX_FIELDS.into());
        }
        d.focus_first_error();
        return Vec::new();
    }
    if views::write_spec(d).asks {
        d.confirm = confirm_text(d);
        d.phase = Phase::Confirm;
        cx.confirm = Some(question(asking.mode, d));
        return Vec::new();
    }
    send(forms, cx, asking)
}

/// The write the dialog's fields describe, or `None` with problems marked.
fn build(d: &mut Dialog) -> Option<WriteOp> {
    if let Kind::Op(o, req) = &d.kind {
        return Some(WriteOp::Op(o.resource, req.clone()));
    }
    if let Kind::OpForm(o, record) = &d.kind {
        // The fields' values are the operation's named inputs.
        let args: crate::resource::ops::OpArgs = d
            .fields
            .iter()
            .map(|f| (f.key.to_string(), f.value()))
            .filter(|(_, v)| !v.is_empty())
            .collect();
        let req = o.op().map(|op| (op.request)(&record.item, &args));
        return match req {
            Some(Ok(req)) => Some(WriteOp::Op(o.resource, req)),
            Some(Err(why)) => {
                d.message = Some(why);
                None
            }
            None => None,
        };
    }
    // The console module of the resource that opened the dialog builds its write.
    views::build(d)
}

fn confirm_text(d: &Dialog) -> String {
    views::confirm_text(d).unwrap_or_else(|| d.confirm.clone())
}

/// Sends the write (validated again, since confirm may follow an earlier check). Not while a
/// profile switch resolves: its reply would be lost with the old profile's connection.
fn send(forms: &mut FormsState, cx: &mut Core, asking: Asking<'_>) -> Vec<Effect> {
    let req_id = cx.next_req_id();
    let Some(d) = forms.dialog.as_mut() else {
        return Vec::new();
    };
    if let Some(p) = asking.switching {
        d.phase = Phase::Editing;
        d.message = Some(format!(
            "Switching to profile {p}: save again once it is done (nothing was sent)"
        ));
        return Vec::new();
    }
    let Some(op) = build(d) else {
        d.phase = Phase::Editing;
        return Vec::new();
    };
    d.phase = Phase::Submitting(req_id);
    d.message = None;
    vec![Effect::Api {
        req_id,
        pane: Pane::Form(0),
        cmd: ApiCmd::Write(Box::new(op)),
    }]
}

/// Whether an open dialog waits for this request.
pub(crate) fn awaits(forms: &FormsState, req_id: u64) -> bool {
    forms.dialog.as_ref().is_some_and(|d| {
        d.phase == Phase::Submitting(req_id) || d.lookups.iter().any(|(r, _)| *r == req_id)
    })
}

/// A reply for the open dialog.
pub(crate) fn on_reply(
    forms: &mut FormsState,
    cx: &mut Core,
    req_id: u64,
    result: Result<ApiReply, Error>,
) -> Vec<Effect> {
    let Some(d) = forms.dialog.as_mut() else {
        return Vec::new();
    };
    if let Some(pos) = d.lookups.iter().position(|(r, _)| *r == req_id) {
        let (_, at) = d.lookups.remove(pos);
        lookup_arrived(d, at, result);
        return Vec::new();
    }
    match result {
        Ok(ApiReply::Item(record)) => write_done(forms, cx, record),
        Ok(_) => {
            d.phase = Phase::Editing;
            d.message = Some("Unexpected reply from the server".into());
            Vec::new()
        }
        Err(e) => {
            d.phase = Phase::Editing;
            d.show_error(&e);
            Vec::new()
        }
    }
}

fn lookup_arrived(d: &mut Dialog, at: usize, result: Result<ApiReply, Error>) {
    let before: Vec<bool> = d.fields.iter().map(Field::is_dirty).collect();
    let Some(p) = d.fields.get_mut(at).and_then(Field::picker_mut) else {
        return;
    };
    p.items = match result {
        Ok(ApiReply::Options(items)) => Items::Ready(items),
        Ok(_) => Items::Typed("unexpected reply; type the id".into()),
        Err(e) => Items::Typed(match e.status() {
            Some(s @ (403 | 404)) => format!("list not available ({s}); type the id"),
            _ => format!("list failed ({e}); type the id"),
        }),
    };
    views::after_change(d);
    // Items arriving and pre-selection are not the user's doing.
    for (f, was) in d.fields.iter_mut().zip(before) {
        if !was {
            f.settle();
        }
    }
}

/// Closes the dialog and lands on what was written: the detail shows the new copy, and the list
/// loads the page that holds it (the shown page when it is there, else the page around it) and
/// selects it. A delete reloads the shown page.
fn write_done(forms: &mut FormsState, cx: &mut Core, record: Record) -> Vec<Effect> {
    let Some(d) = forms.dialog.take() else {
        return Vec::new();
    };
    let tab = record.item.kind();
    let id = record.id().to_string();
    let name = crate::console::views::title(&record);
    let spec = views::write_spec(&d);
    cx.toast(ToastKind::Info, format!("{name}: {}", spec.done));
    if spec.gone {
        // Named elsewhere (chips, a notification's destination): say it is gone.
        cx.caches.active.remove(&id);
        cx.caches.deleted.insert(id.clone());
    }
    cx.replace_row(tab, &record);
    let ts = cx.tab_state_mut(tab);
    if spec.removes {
        if ts.detail.as_ref().is_some_and(|dp| dp.id == id) {
            ts.detail = None;
        }
        let list = &cx.tab_state(tab).list;
        let (anchor, page) = (list.anchor.clone(), list.page);
        return load_list(cx, tab, anchor, page, false);
    }
    // The detail shows what the toast named at once, so that the next write key acts on it even
    // before its page arrives.
    ts.detail = Some(DetailPane {
        id: id.clone(),
        record: Some(record),
        ..DetailPane::default()
    });
    forms.land_on = Some((tab, id.clone()));
    let list = &cx.tab_state(tab).list;
    let here = list.rows.iter().any(|r| r.id() == id);
    let mut effects = if here {
        let (anchor, page) = (list.anchor.clone(), list.page);
        load_list(cx, tab, anchor, page, false)
    } else {
        load_list(cx, tab, Anchor::Around(id.clone()), 0, true)
    };
    // An answer holding what no read gives again (a new secret) stays: shown this once.
    if !spec.keeps_reply {
        effects.extend(load_detail(cx, tab, id.clone()));
    }
    if let Kind::Op(o, _) = &d.kind
        && views::follows_reply(*o)
    {
        effects.extend(crate::console::follow::start(cx, id, o.verb));
    }
    if spec.members {
        effects.extend(crate::console::members::refresh(cx));
    } else if tab.lists_members() {
        effects.extend(crate::console::members::want(cx));
    }
    effects
}

/// After a list page arrives: puts the cursor on the item a write just touched.
pub(crate) fn land_cursor(forms: &mut FormsState, cx: &mut Core, tab: Tab) {
    let Some((t, id)) = forms.land_on.clone() else {
        return;
    };
    if t != tab {
        return;
    }
    forms.land_on = None;
    let list = &mut cx.tab_state_mut(tab).list;
    match list.rows.iter().position(|r| r.id() == id) {
        // The view is the rows in server order until it is derived again, which keeps it.
        Some(i) => list.cursor = i,
        None => cx.toast(
            ToastKind::Info,
            format!("{id} is not in this list (its filter leaves it out)"),
        ),
    }
}

/// Whether the cursor is still on its way to a written item of this tab: until it lands, the
/// selected row is not the item the toast named.
pub(crate) fn landing(forms: &FormsState, tab: Tab) -> bool {
    forms.land_on.as_ref().is_some_and(|(t, _)| *t == tab)
}

/// Pasted text for the focused field while the fields are edited; false otherwise.
pub(crate) fn paste(forms: &mut FormsState, text: &str) -> bool {
    let Some(d) = forms.dialog.as_mut() else {
        return false;
    };
    if d.phase != Phase::Editing {
        return false;
    }
    let at = d.focus;
    let Some(f) = d.fields.get_mut(at) else {
        return false;
    };
    if !f.paste(text) {
        return false;
    }
    if d.message.as_deref() == Some(FIX_FIELDS) {
        d.message = None;
    }
    views::after_change(d);
    true
}
