//! What each write does besides its request, now that the dialog names no resource: the toast
//! word, the question, the removal, the deleted mark and the members come from the console
//! module of the resource that opened the dialog (`DetailView::write_spec`), as they did when
//! each write had a variant of its own.
use switchboard::console::forms::{Dialog, Kind, WriteSpec};
use switchboard::console::keymap::Action;
use switchboard::console::tab::Tab;
use switchboard::console::views::write_spec;

fn spec(tab: Tab, action: Action) -> WriteSpec {
    let mut d = Dialog::new("t", Kind::Write(action, Some("x".into())), Vec::new());
    d.resource = Some(tab);
    write_spec(&d)
}

/// (done, asks, removes, gone, members, keeps_reply)
fn parts(s: WriteSpec) -> (&'static str, bool, bool, bool, bool, bool) {
    (s.done, s.asks, s.removes, s.gone, s.members, s.keeps_reply)
}

#[test]
fn each_write_keeps_its_toast_question_and_follow_up() {
    let cases = [
        (
            Tab::Teams,
            Action::CREATE,
            ("created", false, false, false, false, false),
        ),
        (
            Tab::Teams,
            Action::EDIT,
            ("saved", false, false, false, false, false),
        ),
        (
            Tab::Teams,
            crate::console::views::teams::SET_PROJECT,
            ("project roles set", false, false, false, false, false),
        ),
        (
            Tab::Teams,
            crate::console::views::teams::REMOVE_PROJECT,
            ("project removed", true, false, false, false, false),
        ),
        (
            Tab::Teams,
            crate::console::views::teams::ADD_MEMBER,
            ("member added", true, false, false, true, false),
        ),
        (
            Tab::Teams,
            crate::console::views::teams::REMOVE_MEMBER,
            ("member removed", true, false, false, true, false),
        ),
        (
            Tab::OrgTeams,
            crate::console::views::teams::ADD_MEMBER,
            ("member added", true, false, false, true, false),
        ),
        (
            Tab::Imports,
            Action::EDIT,
            ("saved", false, false, false, false, false),
        ),
        (
            Tab::Destinations,
            Action::CREATE,
            ("created", false, false, false, false, false),
        ),
        (
            Tab::Destinations,
            Action::DELETE,
            ("deleted", true, true, true, false, false),
        ),
        (
            Tab::Listeners,
            Action::DELETE,
            ("deleted", true, true, false, false, false),
        ),
        (
            Tab::DeploymentCallbacks,
            Action::DELETE,
            ("archived", true, true, false, false, false),
        ),
        // Its create answers with the signing secret, shown this once.
        (
            Tab::EventDestinations,
            Action::CREATE,
            ("created", false, false, false, false, true),
        ),
        (
            Tab::EventDestinations,
            Action::EDIT,
            ("saved", false, false, false, false, false),
        ),
    ];
    for (tab, action, want) in cases {
        assert_eq!(parts(spec(tab, action)), want, "{tab:?} {action:?}");
    }
}
