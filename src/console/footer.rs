//! The footer, generated from what the rooms declare: the outermost open layer (see
//! `layers::Layer::keys`) says which keys it takes where it is, with a word each; the footer
//! shows them in the keys the keymap binds (rebinding respected, writes hidden in read-only
//! mode), cut to the width with `? help` and `q quit` always kept.
use super::keymap::{Action, KeySpec, Keymap};

/// One key a room offers now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hint {
    /// An action, shown by its first bound key.
    Action(Action, &'static str),
    /// Two actions sharing a word, shown by the first key of each: `j/k move`, `]/[ page`.
    Pair(Action, Action, &'static str),
    /// A key a room reads itself (a dialog's `y`, a form's `Tab`).
    Key(&'static str, &'static str),
}

impl Hint {
    /// (keys, word) as shown; none when the action is unbound or hidden.
    fn shown(self, km: &Keymap) -> Option<(String, &'static str)> {
        match self {
            Hint::Key(k, w) => Some((k.to_string(), w)),
            Hint::Action(a, _) if km.hide_writes && a.is_write() => None,
            Hint::Action(a, w) => Some((first_key(km, a)?, w)),
            Hint::Pair(a, _, _) if km.hide_writes && a.is_write() => None,
            Hint::Pair(a, b, w) => {
                let keys: Vec<String> = [a, b]
                    .into_iter()
                    .filter_map(|x| first_key(km, x))
                    .collect();
                (!keys.is_empty()).then(|| (keys.join("/"), w))
            }
        }
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
