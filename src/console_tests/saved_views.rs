//! Saved views (issue 38) on the local service: `:view save NAME` writes the tab's status
//! filter, order and sort into the profile's section of the config file (0600); a new console
//! on the same file (a restart) applies it with `:view NAME` and `--view NAME`; another profile
//! does not see it, and switching back does.
use crossterm::event::KeyCode;
use switchboard::console::power::{ConfirmMode, PowerSetup, ProfileInfo, ProfileSwitcher};
use switchboard::console::{App, ConsoleSetup, Msg};

use crate::common::deliveries::settle;
use crate::common::service::{TestService, demo};
use crate::common::{ch, key, screen, typed};

fn command(app: &mut App, line: &str) {
    app.apply(ch(':'));
    typed(app, line);
    app.apply(key(KeyCode::Enter));
}

/// A console on the service as profile `work` of the config at `path`; every profile resolves
/// to the same service.
async fn console(t: &TestService, path: &std::path::Path, view: Option<&str>) -> App {
    let client = t.client.clone();
    let url = t.svc.base_url.clone();
    let switcher = ProfileSwitcher::new(move |name| {
        let info = ProfileInfo {
            profile: name.to_string(),
            base_url: url.clone(),
            read_only: false,
            confirm: ConfirmMode::Ask,
        };
        Ok((client.clone(), info))
    });
    let setup = ConsoleSetup {
        client: t.client.clone(),
        profile: "work".into(),
        read_only: false,
        power: PowerSetup {
            profiles: vec!["work".into(), "other".into()],
            config_path: Some(path.to_path_buf()),
            view: view.map(str::to_string),
            switcher: Some(switcher),
            ..PowerSetup::default()
        },
    };
    let mut app = setup.app();
    app.apply(Msg::Resize(160, 40));
    app.start();
    settle(&mut app).await;
    app
}

fn title(app: &App) -> String {
    screen(app)
        .lines()
        .find(|l| l.contains("Notifications ·"))
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_view_survives_a_restart_and_a_profile_switch() {
    let t = demo().await;
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("config.toml");
    std::fs::write(
        &path,
        format!(
            "[profiles.work]\nbase_url = \"{0}\"\n\n[profiles.other]\nbase_url = \"{0}\"\n",
            t.svc.base_url
        ),
    )
    .expect("config");

    let mut app = console(&t, &path, None).await;
    app.apply(ch('5'));
    settle(&mut app).await;
    // Failed only, oldest first, sorted by the first sortable column.
    for c in ['l', 'o', 's'] {
        app.apply(ch(c));
        settle(&mut app).await;
    }
    let before = title(&app);
    assert!(
        before.contains("oldest first") && before.contains("[failed "),
        "{before}"
    );
    command(&mut app, "view save mine");
    settle(&mut app).await;
    assert!(screen(&app).contains("View mine saved"), "{}", screen(&app));
    let text = std::fs::read_to_string(&path).expect("config");
    assert!(
        text.contains("[profiles.work.views.mine]") && text.contains("status = \"failed\""),
        "{text}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    // A restart: a new console on the same file, on another tab, applies it by name.
    let mut again = console(&t, &path, None).await;
    assert!(!title(&again).contains("[failed "));
    command(&mut again, "view mine");
    settle(&mut again).await;
    assert_eq!(title(&again), before);

    // Another profile does not see it; back on `work`, it is there.
    command(&mut again, "profile other");
    settle(&mut again).await;
    assert_eq!(again.state.profile, "other");
    command(&mut again, "view mine");
    settle(&mut again).await;
    assert!(
        screen(&again).contains("No view mine"),
        "{}",
        screen(&again)
    );
    command(&mut again, "view");
    assert!(screen(&again).contains("Views: failed · retrying · today"));
    command(&mut again, "profile work");
    settle(&mut again).await;
    command(&mut again, "view mine");
    settle(&mut again).await;
    assert_eq!(title(&again), before);

    // `--view`: the console opens on it; the shipped ones are there.
    let started = console(&t, &path, Some("mine")).await;
    assert_eq!(title(&started), before);
    let failed = console(&t, &path, Some("failed")).await;
    let s = title(&failed);
    assert!(s.contains("[failed ") && s.contains("newest first"), "{s}");
}
