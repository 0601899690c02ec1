//! Alerts in the console (issue 38), on the local service with a receiver that fails: the
//! profile's rule is judged on the worker when the console opens, the header says how many are
//! failing, `!` lists them (the rule, the destination by name, how many deliveries) and `Esc`
//! closes the list; a rule that holds shows nothing.
use crossterm::event::KeyCode;
use switchboard::console::power::PowerSetup;
use switchboard::console::{App, Msg, State};

use crate::common::deliveries::{World, fixed_clock, settle, world};
use crate::common::{ch, key, screen};

fn rules(text: &str) -> Vec<switchboard::alerts::Rule> {
    let table: toml::Table = toml::from_str(text).expect("rule");
    let env = switchboard::config::Env::from_pairs::<&str, &str>([]);
    switchboard::alerts::parse_rules(&[table], "[[alerts]]", None, &env).expect("rules")
}

async fn app(w: &World, rules: Vec<switchboard::alerts::Rule>) -> App {
    let mut state = State::new("test", w.t.svc.base_url.clone(), fixed_clock());
    PowerSetup {
        alerts: rules,
        ..PowerSetup::default()
    }
    .configure(&mut state);
    let mut app = App::with_client(state, w.t.client.clone());
    app.apply(Msg::Resize(160, 40));
    app.start();
    settle(&mut app).await;
    app
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_rules_show_in_the_header_and_bang_lists_them() {
    let w = world().await;
    w.fire(1).await;
    let failing = rules(&format!(
        "name = \"orders down\"\nrule = \"consecutive_failures\"\ndestination = \"{}\"\ncount = 1\n",
        w.down
    ));
    let mut a = app(&w, failing).await;
    let s = screen(&a);
    let header = s.lines().nth(1).unwrap_or_default();
    assert!(header.contains("⚠ 1 alert · !"), "{s}");

    a.apply(ch('!'));
    settle(&mut a).await;
    let s = screen(&a);
    assert!(s.contains("Active alerts"), "{s}");
    let row = s
        .lines()
        .find(|l| l.contains("orders down"))
        .unwrap_or_else(|| panic!("the rule listed:\n{s}"));
    assert!(
        row.contains("consecutive_failures") && row.contains("1 deliveries"),
        "{row}"
    );
    a.apply(key(KeyCode::Esc));
    assert!(!screen(&a).contains("Active alerts"));

    // The healthy destination: nothing in the header; `!` says none is failing.
    let fine = rules(&format!(
        "name = \"orders ok\"\nrule = \"consecutive_failures\"\ndestination = \"{}\"\ncount = 1\n",
        w.healthy
    ));
    let mut b = app(&w, fine).await;
    assert!(!screen(&b).contains("⚠"), "{}", screen(&b));
    b.apply(ch('!'));
    settle(&mut b).await;
    assert!(screen(&b).contains("No rule is failing."), "{}", screen(&b));

    // Without rules, `!` says where they go.
    let mut c = app(&w, Vec::new()).await;
    c.apply(ch('!'));
    assert!(
        screen(&c).contains("No alert rules for profile test"),
        "{}",
        screen(&c)
    );
}
