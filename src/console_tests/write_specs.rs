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
            Action::Create,
            ("created", false, false, false, false, false),
        ),
        (
            Tab::Teams,
            Action::Edit,
            ("saved", false, false, false, false, false),
        ),
        (
            Tab::Teams,
            Action::SetProject,
            ("project roles set", false, false, false, false, false),
        ),
        (
            Tab::Teams,
            Action::RemoveProject,
            ("project removed", true, false, false, false, false),
        ),
        (
            Tab::Teams,
            Action::AddMember,
            ("member added", true, false, false, true, false),
        ),
        (
            Tab::Teams,
            Action::RemoveMember,
            ("member removed", true, false, false, true, false),
        ),
        (
            Tab::OrgTeams,
            Action::AddMember,
            ("member added", true, false, false, true, false),
        ),
        (
            Tab::Imports,
            Action::Edit,
            ("saved", false, false, false, false, false),
        ),
        (
            Tab::Destinations,
            Action::Create,
            ("created", false, false, false, false, false),
        ),
        (
            Tab::Destinations,
            Action::Delete,
            ("deleted", true, true, true, false, false),
        ),
        (
            Tab::Listeners,
            Action::Delete,
            ("deleted", true, true, false, false, false),
        ),
        (
            Tab::DeploymentCallbacks,
            Action::Delete,
            ("archived", true, true, false, false, false),
        ),
        // Its create answers with the signing secret, shown this once.
        (
            Tab::EventDestinations,
            Action::Create,
            ("created", false, false, false, false, true),
        ),
        (
            Tab::EventDestinations,
            Action::Edit,
            ("saved", false, false, false, false, false),
        ),
    ];
    for (tab, action, want) in cases {
        assert_eq!(parts(spec(tab, action)), want, "{tab:?} {action:?}");
    }
}
