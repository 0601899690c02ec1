//! Operator power tools wired into the Elm loop: the `:` command line, per-tab filter and sort
//! of the loaded rows, the raw JSON view, copying, runtime profile switching, read-only refusals.
//! `update` calls in here through a few hooks; the rest of the console is unaware of it.
use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::command::{self, Command, CommandLine};
use super::filter::{self, Filter};
use super::keymap::Action;
use super::layout;
use super::msg::{Effect, Msg};
use super::raw_json::{self, RawView};
use super::record::Record;
use super::sort::Sort;
use super::state::{DetailPane, LoadState, State, ToastKind};
use super::tab::Tab;
use super::update;

/// How destructive actions are confirmed (the profile's `confirm`); read by the forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConfirmMode {
    /// No question (`confirm = false`).
    Off,
    /// A yes/no question (`confirm = true`, the default).
    #[default]
    Ask,
    /// The item's name must be typed (`confirm = "type-name"`).
    TypeName,
}

impl ConfirmMode {
    /// The mode of a resolved profile's settings.
    pub fn from_settings(confirm: bool, type_name: bool) -> Self {
        match (confirm, type_name) {
            (_, true) => ConfirmMode::TypeName,
            (true, false) => ConfirmMode::Ask,
            (false, false) => ConfirmMode::Off,
        }
    }
}

/// The power tools' part of the state.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PowerState {
    /// The open command line.
    pub command: Option<CommandLine>,
    /// Command history, oldest first (kept in the data dir between runs).
    pub history: Vec<String>,
    /// Filter per tab, indexed by [`Tab::index`].
    pub filters: [Filter; 5],
    /// Sort per tab.
    pub sorts: [Sort; 5],
    /// Server-order rows of each tab while a filter or sort rearranges what is shown.
    pub stash: [Option<Vec<Record>>; 5],
    /// What each tab showed filtered or sorted, kept while the rows are back in server order
    /// so that a message that changes neither rows, filter nor sort does not redo the work.
    pub derived: [Option<Derived>; 5],
    /// The open raw JSON view.
    pub raw: Option<RawView>,
    /// Confirmation mode of the active profile.
    pub confirm: ConfirmMode,
    /// Whether mouse events are used.
    pub mouse: bool,
    /// Where the history is kept; none keeps it in memory only.
    pub data_dir: Option<PathBuf>,
    /// Profile names offered by completion.
    pub profiles: Vec<String>,
    /// How copies are made (`[console] clipboard`).
    pub clipboard: super::clipboard::ClipboardMode,
    /// The profile being switched to, while it resolves.
    pub switching: Option<String>,
}

/// Rows as a filter and sort showed them, and what they were derived from.
#[derive(Debug, Clone, PartialEq)]
pub struct Derived {
    rev: u64,
    query: String,
    sort: Sort,
    rows: Vec<Record>,
}

/// What the app tells the power tools.
#[derive(Debug, Clone)]
pub enum PowerMsg {
    /// A mouse event.
    Mouse(MouseEvent),
    /// The profile switch succeeded: a new client is in place.
    Switched(ProfileInfo),
    /// The profile could not be switched to.
    SwitchFailed(String),
    /// A copy was sent (or failed).
    Copied {
        /// What was copied, for the toast.
        what: String,
        /// The ways that took it (`OSC 52 + system clipboard`), or why none did.
        result: Result<String, String>,
    },
}

/// The parts of a profile the state shows and obeys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileInfo {
    /// Profile name.
    pub profile: String,
    /// Base URL.
    pub base_url: String,
    /// Refuse writes.
    pub read_only: bool,
    /// Confirmation mode.
    pub confirm: ConfirmMode,
}

/// What the power tools ask of the app.
#[derive(Debug, Clone, PartialEq)]
pub enum PowerEffect {
    /// Put text on the clipboard.
    Copy {
        /// The text.
        text: String,
        /// What it is, for the toast.
        what: String,
    },
    /// Write the command history to the data dir.
    SaveHistory(PathBuf, Vec<String>),
    /// Build a client for another profile.
    SwitchProfile(String),
    /// Forget the switch still resolving (the user stays where they are).
    CancelSwitch,
}

fn fx(e: PowerEffect) -> Vec<Effect> {
    vec![Effect::Power(e)]
}

/// Handles messages before the rest of `update`: power messages and every key while the command
/// line, a filter being typed or the raw view has the keyboard (Ctrl-C excepted).
pub fn intercept(state: &mut State, msg: &Msg) -> Option<Vec<Effect>> {
    match msg {
        Msg::Power(p) => Some(on_msg(state, p.clone())),
        Msg::Key(k) if is_modal(state) && !is_ctrl_c(k) => {
            state.dirty = true;
            Some(on_modal_key(state, k))
        }
        _ => None,
    }
}

fn is_ctrl_c(k: &KeyEvent) -> bool {
    k.modifiers.contains(KeyModifiers::CONTROL) && matches!(k.code, KeyCode::Char('c' | 'C'))
}

/// Whether the power tools own the keyboard.
pub fn is_modal(state: &State) -> bool {
    let p = &state.power;
    p.command.is_some() || p.raw.is_some() || p.filters[state.tab.index()].editing
}

/// Whether a message works on the rows as shown (cursor movement), so that the filtered and
/// sorted view must stay in place while it is applied.
pub fn keeps_view(state: &State, msg: &Msg) -> bool {
    let Msg::Key(k) = msg else {
        return false;
    };
    !state.help
        && matches!(
            state.keymap.action_for(k),
            Some(Action::Down | Action::Up | Action::First | Action::Last)
        )
}

/// Puts every tab's rows back in server order (the rest of `update` expects it), keeping what
/// was shown for [`apply`] to reuse.
pub fn unapply(state: &mut State) {
    for tab in Tab::ALL {
        let i = tab.index();
        let Some(original) = state.power.stash[i].take() else {
            continue;
        };
        let query = state.power.filters[i].query.clone();
        let sort = state.power.sorts[i];
        let list = &mut state.tab_state_mut(tab).list;
        let selected = list.selected().map(|r| r.id().to_string());
        let shown = std::mem::replace(&mut list.rows, original);
        list.cursor = selected
            .and_then(|id| list.rows.iter().position(|r| r.id() == id))
            .unwrap_or(0);
        let rev = list.rev;
        state.power.derived[i] = Some(Derived {
            rev,
            query,
            sort,
            rows: shown,
        });
    }
}

/// Filters and sorts every tab's rows as asked, keeping the selected row when it stays. When
/// rows, filter and sort are what they were at [`unapply`], the rows shown then come back as
/// they were, without matching or copying anything.
pub fn apply(state: &mut State) {
    for tab in Tab::ALL {
        let i = tab.index();
        let cached = state.power.derived[i].take();
        let f = &state.power.filters[i];
        let sort = state.power.sorts[i];
        if !f.active() && sort.column.is_none() {
            continue;
        }
        let query = f.query.clone();
        let list = &mut state.tab_state_mut(tab).list;
        // Rev 0 is a list never touched: nothing is known of its rows.
        let reuse = cached
            .filter(|d| d.rev != 0 && d.rev == list.rev && d.query == query && d.sort == sort);
        let rows = match reuse {
            Some(d) => d.rows,
            None => {
                let mut rows = if query.trim().is_empty() {
                    list.rows.clone()
                } else {
                    filter::apply(&query, &list.rows)
                };
                sort.apply(tab, &mut rows);
                rows
            }
        };
        let selected = list.selected().map(|r| r.id().to_string());
        let original = std::mem::replace(&mut list.rows, rows);
        list.cursor = selected
            .and_then(|id| list.rows.iter().position(|r| r.id() == id))
            .unwrap_or(0);
        state.power.stash[i] = Some(original);
        update::keep_cursor_visible(state, tab);
    }
}

/// `12 of 20 on this page`, while the tab's rows are filtered.
pub fn count_line(state: &State, tab: Tab) -> Option<String> {
    if !state.power.filters[tab.index()].active() {
        return None;
    }
    let total = state.power.stash[tab.index()].as_ref()?.len();
    let shown = state.tab_state(tab).list.rows.len();
    Some(format!("{shown} of {total} on this page"))
}

/// ` · sort name ↑ asc` for the list title.
pub fn sort_suffix(state: &State) -> String {
    state.power.sorts[state.tab.index()]
        .label(state.tab)
        .map(|l| format!(" · {l}"))
        .unwrap_or_default()
}

/// Whether Esc should clear the list's filter (instead of going back).
pub fn filter_active(state: &State) -> bool {
    state.current().detail.is_none() && state.power.filters[state.tab.index()].active()
}

/// Clears the current tab's filter.
pub fn clear_filter(state: &mut State) -> Vec<Effect> {
    state.power.filters[state.tab.index()] = Filter::default();
    Vec::new()
}

/// Refuses a write action in read-only mode.
pub fn refuse(state: &mut State, action: Action) -> Vec<Effect> {
    state.toast(
        ToastKind::Error,
        format!(
            "read-only: {} is refused (profile {})",
            action.describe(),
            state.profile
        ),
    );
    Vec::new()
}

/// The record the user looks at: the open detail's, else the selected row.
fn focused_record(state: &State) -> Option<Record> {
    let ts = state.current();
    match &ts.detail {
        Some(d) => d
            .record
            .clone()
            .or_else(|| ts.list.rows.iter().find(|r| r.id() == d.id).cloned()),
        None => ts.list.selected().cloned(),
    }
}

/// The power actions, from the keymap (after dialogs and help had their say), mouse or command.
pub fn on_action(state: &mut State, action: Action) -> Vec<Effect> {
    let tab = state.tab;
    match action {
        Action::Command => {
            state.power.command = Some(CommandLine::default());
            Vec::new()
        }
        Action::Filter => {
            state.power.filters[tab.index()].editing = true;
            Vec::new()
        }
        Action::Sort => {
            state.power.sorts[tab.index()].cycle(tab);
            Vec::new()
        }
        Action::SortFlip => {
            let s = &mut state.power.sorts[tab.index()];
            s.desc = !s.desc;
            if s.column.is_none() {
                s.cycle(tab);
            }
            Vec::new()
        }
        Action::RawJson => match focused_record(state) {
            Some(r) => {
                state.power.raw = Some(RawView::new(r.id(), &r.raw));
                Vec::new()
            }
            None => nothing_selected(state),
        },
        Action::CopyId | Action::CopyJson => copy(state, action == Action::CopyJson),
        _ => Vec::new(),
    }
}

fn nothing_selected(state: &mut State) -> Vec<Effect> {
    state.toast(ToastKind::Info, "Nothing selected");
    Vec::new()
}

fn copy(state: &mut State, json: bool) -> Vec<Effect> {
    let Some(r) = focused_record(state) else {
        return nothing_selected(state);
    };
    let shown_id = crate::text::line(r.id()).into_owned();
    let (text, what) = if json {
        (raw_json::pretty(&r.raw), format!("JSON of {shown_id}"))
    } else {
        match crate::text::clip::id(r.id()) {
            Ok(id) => (id.to_string(), format!("id {id}")),
            Err(why) => {
                state.toast(ToastKind::Error, format!("Not copied: {why}"));
                return Vec::new();
            }
        }
    };
    fx(PowerEffect::Copy { text, what })
}

fn on_msg(state: &mut State, msg: PowerMsg) -> Vec<Effect> {
    state.dirty = true;
    match msg {
        PowerMsg::Mouse(ev) => super::mouse::on_mouse(state, ev),
        PowerMsg::Copied { what, result } => {
            match result {
                Ok(via) => state.toast(ToastKind::Info, format!("Copied {what} ({via})")),
                Err(e) => state.toast(ToastKind::Error, format!("Copy failed: {e}")),
            }
            Vec::new()
        }
        PowerMsg::SwitchFailed(e) => {
            state.power.switching = None;
            state.toast(ToastKind::Error, e);
            Vec::new()
        }
        PowerMsg::Switched(info) => switched(state, info),
    }
}

/// Drops everything of the old profile (requests in flight included: nobody waits for their
/// ids any more) and loads the current tab from the new one.
fn switched(state: &mut State, info: ProfileInfo) -> Vec<Effect> {
    state.tabs = Default::default();
    state.nav.clear();
    state.help = false;
    // Dialogs, attempt views and watches belong to the old profile too.
    state.forms = Default::default();
    state.deliveries = Default::default();
    let p = &mut state.power;
    p.filters = Default::default();
    p.sorts = Default::default();
    p.stash = Default::default();
    p.derived = Default::default();
    p.switching = None;
    p.raw = None;
    p.command = None;
    p.confirm = info.confirm;
    state.read_only = info.read_only;
    state.keymap.hide_writes = info.read_only;
    state.toast(
        ToastKind::Info,
        format!("Profile {} · {}", info.profile, info.base_url),
    );
    state.profile = info.profile;
    state.base_url = info.base_url;
    update::init(state)
}

fn on_modal_key(state: &mut State, key: &KeyEvent) -> Vec<Effect> {
    if state.power.command.is_some() {
        return command_key(state, key);
    }
    if state.power.raw.is_some() {
        return raw_key(state, key);
    }
    filter_key(state, key)
}

/// A typed character (no Ctrl/Alt held).
fn typed(key: &KeyEvent) -> Option<char> {
    match key.code {
        KeyCode::Char(c)
            if !key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
        {
            Some(c)
        }
        _ => None,
    }
}

fn command_key(state: &mut State, key: &KeyEvent) -> Vec<Effect> {
    let Some(cl) = state.power.command.as_mut() else {
        return Vec::new();
    };
    match key.code {
        KeyCode::Esc => state.power.command = None,
        KeyCode::Enter => {
            let line = cl.input.trim().to_string();
            state.power.command = None;
            return run_command(state, &line);
        }
        KeyCode::Backspace => {
            cl.completion = None;
            if cl.input.pop().is_none() {
                state.power.command = None;
            }
        }
        KeyCode::Tab => cl.complete(&state.power.profiles),
        KeyCode::Up => cl.browse(&state.power.history, true),
        KeyCode::Down => cl.browse(&state.power.history, false),
        _ => {
            if let Some(c) = typed(key) {
                cl.completion = None;
                cl.input.push(c);
            }
        }
    }
    Vec::new()
}

/// Runs a command line (without the `:`), remembering it.
pub fn run_command(state: &mut State, line: &str) -> Vec<Effect> {
    if line.is_empty() {
        return Vec::new();
    }
    command::remember(&mut state.power.history, line);
    let mut effects = match &state.power.data_dir {
        Some(d) => fx(PowerEffect::SaveHistory(
            d.clone(),
            state.power.history.clone(),
        )),
        None => Vec::new(),
    };
    let cmd = match command::parse(line) {
        Ok(c) => c,
        Err(e) => {
            state.toast(ToastKind::Error, e);
            return effects;
        }
    };
    effects.extend(match cmd {
        Command::Tab(t) => update::on_action(state, Action::GoTab(t)),
        Command::Quit => update::on_action(state, Action::Quit),
        Command::Help => {
            state.help = true;
            Vec::new()
        }
        Command::Goto(id) => goto(state, &id),
        Command::Profile(name) if name == state.profile => match state.power.switching.take() {
            Some(pending) => {
                state.toast(
                    ToastKind::Info,
                    format!("Staying on profile {name} (switch to {pending} dropped)"),
                );
                fx(PowerEffect::CancelSwitch)
            }
            None => {
                state.toast(ToastKind::Info, format!("Already on profile {name}"));
                Vec::new()
            }
        },
        Command::Profile(name) => {
            state.toast(ToastKind::Info, format!("Switching to profile {name}…"));
            state.power.switching = Some(name.clone());
            fx(PowerEffect::SwitchProfile(name))
        }
    });
    effects
}

/// Opens a resource from its id: the prefix says which tab.
fn goto(state: &mut State, id: &str) -> Vec<Effect> {
    let Some(tab) = command::tab_of_id(id) else {
        state.toast(
            ToastKind::Error,
            format!("{id}: unknown id (tm_, poti_, clb_, cld_ or cbn_)"),
        );
        return Vec::new();
    };
    let mut effects = update::on_action(state, Action::GoTab(tab));
    let record = state
        .tab_state(tab)
        .list
        .rows
        .iter()
        .find(|r| r.id() == id)
        .cloned();
    state.tab_state_mut(tab).detail = Some(DetailPane {
        id: id.to_string(),
        record,
        ..DetailPane::default()
    });
    effects.extend(update::load_detail(state, tab, id.to_string()));
    effects
}

fn filter_key(state: &mut State, key: &KeyEvent) -> Vec<Effect> {
    let i = state.tab.index();
    unapply(state);
    let f = &mut state.power.filters[i];
    match key.code {
        KeyCode::Esc => *f = Filter::default(),
        KeyCode::Enter => f.editing = false,
        KeyCode::Backspace => {
            f.query.pop();
        }
        _ => {
            if let Some(c) = typed(key) {
                f.query.push(c);
            }
        }
    }
    apply(state);
    Vec::new()
}

/// Lines of the raw view on screen.
fn raw_height(state: &State) -> usize {
    usize::from(state.size.1.saturating_sub(5)).max(1)
}

fn raw_key(state: &mut State, key: &KeyEvent) -> Vec<Effect> {
    let height = raw_height(state);
    let action = state
        .keymap
        .action_among(key, |a| matches!(a, Action::NextMatch | Action::PrevMatch));
    let Some(view) = state.power.raw.as_mut() else {
        return Vec::new();
    };
    if view.editing {
        match key.code {
            KeyCode::Esc => {
                view.search.clear();
                view.editing = false;
            }
            KeyCode::Enter => {
                view.editing = false;
                view.current = 0;
                view.show_current(height);
            }
            KeyCode::Backspace => {
                view.search.pop();
            }
            _ => {
                if let Some(c) = typed(key) {
                    view.search.push(c);
                    view.current = 0;
                    view.show_current(height);
                }
            }
        }
        return Vec::new();
    }
    match action {
        Some(Action::Back | Action::RawJson) => state.power.raw = None,
        Some(Action::Quit) => return update::on_action(state, Action::Quit),
        Some(Action::Down) => view.scroll = view.scroll.saturating_add(1),
        Some(Action::Up) => view.scroll = view.scroll.saturating_sub(1),
        Some(Action::First) => view.scroll = 0,
        Some(Action::Last) => view.scroll = usize::MAX / 2,
        Some(Action::NextPage) => view.scroll = view.scroll.saturating_add(height),
        Some(Action::PrevPage) => view.scroll = view.scroll.saturating_sub(height),
        Some(Action::Filter) => {
            view.search.clear();
            view.editing = true;
        }
        Some(Action::NextMatch) => {
            view.jump(true, height);
        }
        Some(Action::PrevMatch) => {
            view.jump(false, height);
        }
        Some(a @ (Action::CopyId | Action::CopyJson)) => return on_action(state, a),
        _ => {}
    }
    if let Some(v) = state.power.raw.as_mut() {
        v.clamp(height);
    }
    Vec::new()
}

/// Scrolls the raw view (mouse wheel).
pub fn scroll_raw(state: &mut State, down: bool) -> bool {
    let height = raw_height(state);
    let Some(v) = state.power.raw.as_mut() else {
        return false;
    };
    v.scroll = if down {
        v.scroll.saturating_add(3)
    } else {
        v.scroll.saturating_sub(3)
    };
    v.clamp(height);
    true
}

/// The rows of a list area that hold data: inside the border, below errors and the header.
pub fn data_rows_area(state: &State, list_area: Rect) -> Rect {
    let list = &state.current().list;
    let errors = match &list.load {
        LoadState::Error(e) => 1 + u16::from(e.hint.is_some()),
        _ => 0,
    };
    let inner = Block::bordered().inner(list_area);
    let top = inner.y.saturating_add(errors + 1);
    let shown = list.rows.len().saturating_sub(list.offset) as u16;
    let height = inner.bottom().saturating_sub(top).min(shown);
    Rect::new(inner.x, top, inner.width, height)
}

/// Draws the filter count on the list's bottom border and highlights the matches.
pub fn render_list_extras(state: &State, frame: &mut Frame, area: Rect) {
    let f = &state.power.filters[state.tab.index()];
    if !f.active() && !f.editing {
        return;
    }
    let count = count_line(state, state.tab).unwrap_or_default();
    let text = format!(" /{} · {count} ", f.query);
    let w = (text.chars().count() as u16).min(area.width.saturating_sub(2));
    let x = area.right().saturating_sub(w + 1);
    let bottom = Rect::new(x, area.bottom().saturating_sub(1), w, 1);
    frame.render_widget(
        Paragraph::new(Span::styled(text, state.theme.accent)),
        bottom,
    );
    if f.active() {
        let rows = data_rows_area(state, area);
        filter::highlight(frame.buffer_mut(), rows, &f.query);
    }
}

/// Draws the command line, the filter prompt or the raw view's keys in the footer; false when
/// the usual footer applies.
pub fn render_footer(state: &State, frame: &mut Frame, area: Rect) -> bool {
    let t = &state.theme;
    let km = &state.keymap;
    let line = if let Some(c) = &state.power.command {
        let mut spans = vec![Span::styled(":", t.key), Span::raw(format!("{}▏", c.input))];
        if let Some((cands, _, _)) = &c.completion
            && cands.len() > 1
        {
            spans.push(Span::styled(format!("  {}", cands.join(" ")), t.muted));
        }
        Line::from(spans)
    } else if let Some(v) = &state.power.raw {
        if v.editing {
            Line::from(vec![
                Span::styled("search /", t.key),
                Span::raw(format!("{}▏", v.search)),
                Span::styled("  Enter find · Esc clear", t.muted),
            ])
        } else {
            let pairs = [
                (Action::Down, "scroll"),
                (Action::Filter, "search"),
                (Action::NextMatch, "next"),
                (Action::PrevMatch, "prev"),
                (Action::CopyJson, "copy JSON"),
                (Action::Back, "close"),
            ];
            let mut spans = Vec::new();
            for (a, word) in pairs {
                if let Some(k) = km.keys_for(a).first() {
                    spans.push(Span::raw(" "));
                    spans.push(Span::styled(k.label(), t.key));
                    spans.push(Span::styled(format!(" {word} "), t.muted));
                }
            }
            Line::from(spans)
        }
    } else if state.power.filters[state.tab.index()].editing {
        let f = &state.power.filters[state.tab.index()];
        Line::from(vec![
            Span::styled("filter /", t.key),
            Span::raw(format!("{}▏", f.query)),
            Span::styled("  Enter keep · Esc clear", t.muted),
        ])
    } else {
        return false;
    };
    frame.render_widget(Paragraph::new(line), area);
    true
}

/// Draws the raw view over the body.
pub fn render_overlay(state: &State, frame: &mut Frame, screen: Rect) {
    let Some(view) = &state.power.raw else {
        return;
    };
    let areas = layout::areas(screen, state.current().detail.is_some());
    let top = areas.header.bottom();
    let body = Rect::new(
        screen.x,
        top,
        screen.width,
        areas.footer.y.saturating_sub(top),
    );
    raw_json::render(view, frame, body, &state.theme);
}

/// Builds the client and settings of another profile (main wires it to the config).
#[derive(Clone)]
pub struct ProfileSwitcher(
    #[allow(clippy::type_complexity)]
    pub  std::sync::Arc<
        dyn Fn(&str) -> Result<(crate::api::Client, ProfileInfo), String> + Send + Sync,
    >,
);

impl std::fmt::Debug for ProfileSwitcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProfileSwitcher")
    }
}

impl ProfileSwitcher {
    /// Wraps a function.
    pub fn new(
        f: impl Fn(&str) -> Result<(crate::api::Client, ProfileInfo), String> + Send + Sync + 'static,
    ) -> Self {
        Self(std::sync::Arc::new(f))
    }
}

/// The power tools' part of the console setup; every field has a harmless default.
#[derive(Debug, Clone, Default)]
pub struct PowerSetup {
    /// Confirmation mode of the profile.
    pub confirm: ConfirmMode,
    /// The config's `[keys]` table.
    pub keys: Option<toml::Table>,
    /// The config's `[console]` table (`theme = "dark"|"light"`, `mouse = true|false`).
    pub console: Option<toml::Table>,
    /// Where the command history is kept.
    pub data_dir: Option<PathBuf>,
    /// Profile names for completion.
    pub profiles: Vec<String>,
    /// How `:profile NAME` builds a client; none refuses the command.
    pub switcher: Option<ProfileSwitcher>,
    /// `NO_COLOR` is set.
    pub no_color: bool,
}

impl PowerSetup {
    /// Applies keys, theme, mouse, confirmation and history to a fresh state. Config mistakes
    /// leave the defaults in place and say why in a toast.
    pub fn configure(&self, state: &mut State) {
        let mut problems = Vec::new();
        if let Some(keys) = &self.keys {
            match super::keymap::Keymap::from_config(keys) {
                Ok(km) => state.keymap = km,
                Err(e) => problems.push(format!("{e}; default keys in use")),
            }
        }
        let console = self.console.clone().unwrap_or_default();
        let theme_name = match console.get("theme") {
            None => None,
            Some(toml::Value::String(s)) => Some(s.as_str()),
            Some(_) => {
                problems.push("[console] theme must be \"dark\" or \"light\"".into());
                None
            }
        };
        let (theme, problem) = super::theme::Theme::choose(theme_name, self.no_color);
        state.theme = theme;
        problems.extend(problem);
        state.power.mouse = match console.get("mouse") {
            None => true,
            Some(toml::Value::Boolean(b)) => *b,
            Some(_) => {
                problems.push("[console] mouse must be true or false; mouse on".into());
                true
            }
        };
        match console.get("watch_interval") {
            None => {}
            Some(v) => match v.as_float().or_else(|| v.as_integer().map(|i| i as f64)) {
                Some(secs) if (0.2..=3600.0).contains(&secs) => {
                    super::deliveries::watch::set_interval(
                        &mut state.deliveries.watch,
                        std::time::Duration::from_secs_f64(secs),
                    )
                }
                _ => problems.push(
                    "[console] watch_interval must be seconds between 0.2 and 3600; 2 s in use"
                        .into(),
                ),
            },
        }
        state.power.clipboard = match console.get("clipboard") {
            None => Default::default(),
            Some(v) => match v.as_str().map(super::clipboard::ClipboardMode::parse) {
                Some(Ok(mode)) => mode,
                Some(Err(e)) => {
                    problems.push(e);
                    Default::default()
                }
                None => {
                    problems.push("[console] clipboard must be a string; auto in use".into());
                    Default::default()
                }
            },
        };
        for key in console.keys().filter(|k| {
            !matches!(
                k.as_str(),
                "theme" | "mouse" | "watch_interval" | "clipboard"
            )
        }) {
            problems.push(format!("[console] unknown setting {key:?} (ignored)"));
        }
        state.keymap.hide_writes = state.read_only;
        state.power.confirm = self.confirm;
        state.power.data_dir = self.data_dir.clone();
        state.power.profiles = self.profiles.clone();
        state.power.history = command::load_history(self.data_dir.as_deref());
        for p in problems {
            tracing::warn!("config: {p}");
            state.toast(ToastKind::Error, p);
        }
    }
}
