//! One list of layers gives key order, draw order and mouse routing (#33): for each pair of
//! layers that can be open together, the one earlier in `Layer::ORDER` is drawn over the
//! later one, takes the key and takes the click. Driven through the harness, offline, with the
//! fixtures' replies; asserted on the rendered screen.
use crossterm::event::{KeyCode, KeyModifiers};
use switchboard::console::harness::Harness;
use switchboard::console::{ApiCmd, Msg, Tab};

use crate::common::{fixed_clock, fixture_reply};
use crate::console::layers::Layer;

const SIZE: (u16, u16) = (100, 30);

/// Answers the pending lists, gets and members with the fixtures, a few rounds (a reply may
/// ask for more).
fn answered(h: &mut Harness) {
    for _ in 0..6 {
        let mut any = false;
        for r in h.take_requests() {
            let Some(reply) = fixture_reply(&r.cmd) else {
                continue;
            };
            any = true;
            h.apply(Msg::Api {
                req_id: r.req_id,
                pane: r.pane,
                result: Ok(reply),
            });
        }
        if !any {
            return;
        }
    }
}

fn on_tab(tab: Tab) -> Harness {
    let mut h = Harness::offline("test", fixed_clock(), SIZE);
    answered(&mut h);
    let digit = char::from_digit(tab.index() as u32 + 1, 10).expect("digit");
    h.ch(digit);
    answered(&mut h);
    h.set_mouse(true);
    h
}

/// The first attempt of the notification fixture, open over its detail.
fn attempt() -> Harness {
    let mut h = on_tab(Tab::Notifications);
    h.key(KeyCode::Enter);
    answered(&mut h);
    h.key(KeyCode::Enter);
    answered(&mut h);
    h
}

fn destinations() -> Harness {
    on_tab(Tab::Destinations)
}

/// Where `text` starts on the screen: (column, row).
fn at(screen: &str, text: &str) -> Option<(u16, u16)> {
    screen.lines().enumerate().find_map(|(row, l)| {
        let l = l.strip_prefix('"').unwrap_or(l);
        let byte = l.find(text)?;
        let col = l[..byte].chars().count();
        Some((u16::try_from(col).ok()?, u16::try_from(row).ok()?))
    })
}

/// Two layers open together, the outer one opened last.
struct Pair {
    name: &'static str,
    /// The layers open once both are: the outer one first.
    open: &'static [Layer],
    /// Opens the inner layer, then the outer one.
    setup: fn() -> Harness,
    /// Text the outer layer draws.
    outer_mark: &'static str,
    /// Text the inner layer shows alone, where the outer layer covers it.
    covered: Option<&'static str>,
    /// The layers open after `Esc`: the outer one's way out.
    after_esc: &'static [Layer],
}

const PAIRS: &[Pair] = &[
    Pair {
        name: "help over the attempt view",
        open: &[Layer::Help, Layer::Overlay, Layer::Tab],
        setup: || {
            let mut h = attempt();
            h.ch('?');
            h
        },
        outer_mark: "┌ Keys",
        covered: Some("metorial-notification-id"),
        after_esc: &[Layer::Overlay, Layer::Tab],
    },
    Pair {
        name: "compare over the attempt view",
        open: &[Layer::Compare, Layer::Overlay, Layer::Tab],
        setup: || {
            let mut h = attempt();
            h.ch('=');
            answered(&mut h);
            h
        },
        outer_mark: "Compare · cbn_",
        covered: Some("Request headers"),
        after_esc: &[Layer::Overlay, Layer::Tab],
    },
    Pair {
        name: "replay over the attempt view",
        open: &[Layer::Replay, Layer::Overlay, Layer::Tab],
        setup: || {
            let mut h = attempt();
            h.ch('P');
            answered(&mut h);
            h
        },
        outer_mark: "Replay cbn_",
        covered: Some("Request headers"),
        after_esc: &[Layer::Overlay, Layer::Tab],
    },
    Pair {
        name: "the command line over the attempt view",
        open: &[Layer::Prompt, Layer::Overlay, Layer::Tab],
        setup: || {
            let mut h = attempt();
            h.ch(':');
            h
        },
        outer_mark: ":▏",
        covered: Some("= compare"),
        after_esc: &[Layer::Overlay, Layer::Tab],
    },
    Pair {
        name: "help over the list",
        open: &[Layer::Help, Layer::Tab],
        setup: || {
            let mut h = destinations();
            h.ch('?');
            h
        },
        outer_mark: "┌ Keys",
        covered: Some("Issue triage"),
        after_esc: &[Layer::Tab],
    },
    Pair {
        name: "the palette over the list",
        open: &[Layer::Palette, Layer::Tab],
        setup: || {
            let mut h = destinations();
            h.ctrl('p');
            h
        },
        outer_mark: "Actions here",
        covered: Some("Issue triage"),
        after_esc: &[Layer::Tab],
    },
    Pair {
        name: "the samples room over the list",
        open: &[Layer::Samples, Layer::Tab],
        setup: || {
            let mut h = destinations();
            h.ch(':').type_text("samples").key(KeyCode::Enter);
            answered(&mut h);
            h
        },
        outer_mark: "Samples · test",
        covered: Some("Issue triage"),
        after_esc: &[Layer::Tab],
    },
    Pair {
        name: "a form over the list",
        open: &[Layer::Form, Layer::Tab],
        setup: || {
            let mut h = destinations();
            h.ch('c');
            h
        },
        outer_mark: "New destination",
        covered: None,
        after_esc: &[Layer::Tab],
    },
    Pair {
        name: "a question over its form",
        open: &[Layer::Confirm, Layer::Form, Layer::Tab],
        setup: || {
            let mut h = destinations();
            h.ch('d');
            h
        },
        outer_mark: "Delete destination “Ops",
        covered: None,
        after_esc: &[Layer::Tab],
    },
];

#[test]
fn the_layer_earlier_in_the_order_is_drawn_on_top_and_takes_the_key_and_the_click() {
    for p in PAIRS {
        let name = p.name;
        let mut h = (p.setup)();
        let s = h.screen();
        // Both open, the one opened last listed first.
        assert_eq!(h.open_layers(), p.open, "{name}:\n{s}");

        // Drawn on top: its text shows, and what it covers of the one below does not.
        assert!(s.contains(p.outer_mark), "{name}: not drawn on top:\n{s}");
        if let Some(covered) = p.covered {
            assert!(
                !s.contains(covered),
                "{name}: {covered:?} shows through:\n{s}"
            );
        }

        // The click: one on another tab's label moves nothing behind the outer layer.
        let (column, row) = at(&s, "2 Imports").expect("the tab labels on screen");
        h.click(column + 1, row);
        answered(&mut h);
        assert_ne!(h.tab(), Tab::Imports, "{name}: the click went behind");
        assert_eq!(h.open_layers(), p.open, "{name}: the click went behind");

        // The key: Esc closes the outer layer; the one below stays, and shows again.
        h.key_with(KeyCode::Esc, KeyModifiers::NONE);
        let s = h.screen();
        assert_eq!(
            h.open_layers(),
            p.after_esc,
            "{name}: Esc went behind:\n{s}"
        );
        if let Some(covered) = p.covered {
            assert!(
                s.contains(covered),
                "{name}: {covered:?} not shown alone:\n{s}"
            );
        }
    }
}

/// A question takes the click on its own buttons over the form that asked it.
#[test]
fn a_click_on_no_answers_the_question_over_its_form() {
    let mut h = destinations();
    h.ch('d');
    let s = h.screen();
    let (column, row) = at(&s, " No ").expect("the question's No");
    h.click(column + 1, row);
    assert_eq!(h.open_layers(), [Layer::Tab], "{s}");
    let writes = h
        .take_requests()
        .iter()
        .filter(|r| matches!(r.cmd, ApiCmd::Write(_)))
        .count();
    assert_eq!(writes, 0, "No sends nothing");
}
