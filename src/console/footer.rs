//! The footer, generated from what the rooms declare: the outermost open layer (see
//! `layers::Layer::keys`) says which keys it takes where it is, with a word each; the footer
//! shows them in the keys the keymap binds (rebinding respected, writes hidden in read-only
//! mode), cut to the width with `? help` and `q quit` always kept. The same declarations, in
//! full and with every bound key, are the help overlay's rows.
use super::keymap::{Action, KeySpec, Keymap};
use super::tab::Tab;

/// One key a room offers now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hint {
    /// An action, shown by its first bound key.
    Action(Action, &'static str),
    /// Two actions sharing a word, shown by the first key of each: `j/k move`, `]/[ page`.
    Pair(Action, Action, &'static str),
    /// One action, or two, that a room gives a meaning of its own: the footer's word, then
    /// the help's description (`n/N failed`: the next and previous failed delivery; `Enter
    /// attempt` in a notification's detail).
    Means(Action, Option<Action>, &'static str, &'static str),
    /// A key a room reads itself (a dialog's `y`, a form's `Tab`).
    Key(&'static str, &'static str),
    /// The tab jumps, one key each.
    Tabs(&'static str),
}

impl Hint {
    /// (keys, word) as shown; none when the action is unbound or hidden.
    fn shown(self, km: &Keymap) -> Option<(String, &'static str)> {
        match self {
            Hint::Key(k, w) => Some((k.to_string(), w)),
            Hint::Action(a, _) if km.hide_writes && a.is_write() => None,
            Hint::Action(a, w) => Some((first_key(km, a)?, w)),
            Hint::Pair(a, _, _) | Hint::Means(a, ..) if km.hide_writes && a.is_write() => None,
            Hint::Pair(_, _, w) | Hint::Means(_, _, w, _) => {
                let keys: Vec<String> = self
                    .actions()
                    .into_iter()
                    .filter_map(|x| first_key(km, x))
                    .collect();
                (!keys.is_empty()).then(|| (keys.join("/"), w))
            }
            Hint::Tabs(w) => {
                let keys: Vec<String> = km
                    .shown
                    .iter()
                    .copied()
                    .filter_map(|t| first_key(km, Action::GoTab(t)))
                    .collect();
                (!keys.is_empty()).then(|| (keys.join("/"), w))
            }
        }
    }

    /// The actions it names.
    pub(crate) fn actions(self) -> Vec<Action> {
        match self {
            Hint::Action(a, _) => vec![a],
            Hint::Pair(a, b, _) | Hint::Means(a, Some(b), ..) => vec![a, b],
            Hint::Means(a, None, ..) => vec![a],
            Hint::Key(..) => Vec::new(),
            Hint::Tabs(_) => Tab::ALL.into_iter().map(Action::GoTab).collect(),
        }
    }

    /// A help row: every key bound (rebinding respected), and a description (the action's own
    /// where the room uses it as the action says, else the room's word); none when the action
    /// is unbound or hidden (writes in read-only mode).
    pub(crate) fn help_row(self, km: &Keymap) -> Option<(String, String)> {
        let hidden = |a: Action| km.hide_writes && a.is_write();
        let keys = |actions: &[Action]| {
            actions
                .iter()
                .map(|a| km.label_for(*a))
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join("/")
        };
        let word = match self {
            Hint::Key(_, w) | Hint::Action(_, w) | Hint::Pair(_, _, w) | Hint::Tabs(w) => w,
            Hint::Means(.., d) => d,
        };
        let (keys, desc) = match self {
            Hint::Key(k, w) => (k.to_string(), w.to_string()),
            Hint::Action(a, _) | Hint::Pair(a, ..) | Hint::Means(a, ..) if hidden(a) => {
                return None;
            }
            // Used as the action says: the action's own description.
            Hint::Action(a, w) if w == a.hint() => (keys(&[a]), a.describe().to_string()),
            // A half rebound elsewhere (or unbound) is not described.
            Hint::Pair(a, b, w) if w == a.hint() && km.keys_for(b).is_empty() => {
                (keys(&[a]), a.describe().to_string())
            }
            Hint::Pair(a, b, w) if w == a.hint() && a.describe() != b.describe() => (
                keys(&[a, b]),
                format!("{} / {}", a.describe(), b.describe()),
            ),
            Hint::Pair(a, _, w) if w == a.hint() => (keys(&self.actions()), a.describe().into()),
            // The shown tabs' keys only: each digit names one tab of each generation.
            Hint::Tabs(w) => {
                let shown: Vec<Action> = km.shown.iter().copied().map(Action::GoTab).collect();
                (keys(&shown), w.to_string())
            }
            _ => (keys(&self.actions()), word.to_string()),
        };
        (!keys.is_empty()).then_some((keys, desc))
    }
}

/// Only the first key of each action keeps the footer short.
fn first_key(km: &Keymap, a: Action) -> Option<String> {
    km.keys_for(a).first().map(KeySpec::label)
}

/// What a layer declares for the footer.
pub(crate) enum Keys {
    /// These keys, most useful first; help and quit follow.
    Offers(Vec<Hint>),
    /// Every key the layer takes, nothing else (it takes every key, `?` and `q` included).
    Only(Vec<Hint>),
    /// The layer draws its own hints: the next open layer's keys show.
    Own,
}

/// The footer's hints for what the outermost layer declared: (keys, word), cut to `width`.
pub(crate) fn hints(declared: Keys, km: &Keymap, width: u16) -> Vec<(String, &'static str)> {
    let cost = |(k, w): &(String, &'static str)| k.chars().count() + w.chars().count() + 3;
    let (offers, tail) = match declared {
        Keys::Only(h) => (h, Vec::new()),
        Keys::Offers(h) => (
            h,
            vec![
                Hint::Action(Action::Help, "help"),
                Hint::Action(Action::Quit, "quit"),
            ],
        ),
        Keys::Own => (Vec::new(), Vec::new()),
    };
    let tail: Vec<_> = tail.into_iter().filter_map(|h| h.shown(km)).collect();
    let mut room = usize::from(width).saturating_sub(tail.iter().map(cost).sum());
    let mut out = Vec::new();
    for h in offers.into_iter().filter_map(|h| h.shown(km)) {
        let c = cost(&h);
        if c > room {
            break;
        }
        room -= c;
        out.push(h);
    }
    out.extend(tail);
    out
}

/// Columns the footer keeps for `? help` and `q quit` (where the layer offers them), whatever
/// else (a toast) wants the line.
pub(crate) fn kept_width(declared: Keys, km: &Keymap) -> u16 {
    let w: usize = hints(declared, km, 0)
        .iter()
        .map(|(k, w)| k.chars().count() + w.chars().count() + 3)
        .sum();
    u16::try_from(w).unwrap_or(u16::MAX)
}
