//! Event destination forms of `event-destinations` (`generations.md` §7): create (name, URL,
//! description, retry policy) and edit (name, description, URL, retry). The requests are the ones
//! headless sends (`ApiRequest::create_event_destination`, `update_event_destination`).
use crate::api::ApiRequest;
use crate::api::model::{
    CreateEventDestination, EventDestination, RetryPolicy, UpdateEventDestination, WebhookInput,
    parse_max_attempts, parse_retry_delay,
};
use crate::console::forms::checks::check_url;
use crate::console::forms::field::Field;
use crate::console::forms::ops::WriteOp;
use crate::console::forms::{Dialog, Kind};
use crate::console::keymap::Action;
use crate::console::tab::Tab;

/// The strategies offered, as the platform names them; a create adds "platform's" first.
const STRATEGIES: [&str; 3] = ["exponential", "linear", "fixed"];

/// The create form's retry choice: the platform's policy, or one of [`STRATEGIES`].
const CREATE_RETRY: [&str; 4] = ["platform's", "exponential", "linear", "fixed"];

fn check_attempts(s: &str) -> Result<Option<String>, String> {
    parse_max_attempts(s).map(|_| None)
}

fn check_delay(s: &str) -> Result<Option<String>, String> {
    parse_retry_delay(s).map(|secs| Some(format!("→ {secs} s")))
}

fn retry_fields(attempts: &str, base: &str, max: &str) -> [Field; 3] {
    [
        Field::text("Max attempts", "max_attempts", attempts)
            .checked(check_attempts)
            .noted("1 to 25"),
        Field::text("Base delay", "base_delay", base)
            .checked(check_delay)
            .noted("10s, 5m, 1h"),
        Field::text("Max delay", "max_delay", max)
            .checked(check_delay)
            .noted("3h"),
    ]
}

/// `c` on Destinations.
pub(crate) fn create() -> Dialog {
    let mut fields = vec![
        Field::text("Name", "name", "").required(),
        Field::text("URL", "url", "")
            .required()
            .checked(check_url)
            .entities(&["webhook"])
            .noted("https://…"),
        Field::text("Description", "description", ""),
        Field::choice("Retry", "retry", CREATE_RETRY.to_vec()),
    ];
    fields.extend(retry_fields("", "", ""));
    Dialog::new("New destination", Kind::Write(Action::CREATE, None), fields)
}

/// `e` on a destination. The URL starts empty (it may carry credentials: shown masked beside
/// the field, never pre-filled) and means "unchanged" when left so.
pub(crate) fn edit(d: &EventDestination) -> Dialog {
    let url = d
        .webhook
        .as_ref()
        .map(|w| crate::text::redact::mask_url(&w.url))
        .unwrap_or_default();
    let retry = d.retry.as_ref();
    let strategy = retry
        .and_then(|r| STRATEGIES.iter().position(|s| *s == r.strategy.as_str()))
        .unwrap_or(0);
    let num = |n: Option<u64>| n.map(|n| format!("{n}s")).unwrap_or_default();
    let mut fields = vec![
        Field::text("Name", "name", &d.name).required(),
        Field::text(
            "Description",
            "description",
            d.description.as_deref().unwrap_or(""),
        ),
        Field::text("URL", "url", "")
            .checked(check_url)
            .entities(&["webhook"])
            .noted(&format!("empty keeps {url}")),
        Field::choice("Retry", "retry", STRATEGIES.to_vec()).starting_at(strategy),
    ];
    fields.extend(retry_fields(
        &retry
            .and_then(|r| r.max_attempts)
            .map(|n| n.to_string())
            .unwrap_or_default(),
        &num(retry.and_then(|r| r.base_delay_seconds)),
        &num(retry.and_then(|r| r.max_delay_seconds)),
    ));
    Dialog::new(
        format!("Edit destination {}", d.name),
        Kind::Write(Action::EDIT, Some(d.id.clone())),
        fields,
    )
}

/// The numbers of the retry fields, or `None` with the problem marked.
type Numbers = (Option<u32>, Option<u64>, Option<u64>);

fn numbers(d: &mut Dialog) -> Option<Numbers> {
    let text = |d: &Dialog, k: &str| Some(d.text(k)).filter(|t| !t.is_empty());
    let attempts = match text(d, "max_attempts").map(|t| parse_max_attempts(&t)) {
        Some(Err(e)) => return fail(d, "max_attempts", e),
        other => other.and_then(Result::ok),
    };
    let mut delays = [None, None];
    for (i, k) in ["base_delay", "max_delay"].into_iter().enumerate() {
        match text(d, k).map(|t| parse_retry_delay(&t)) {
            Some(Err(e)) => return fail(d, k, e),
            other => delays[i] = other.and_then(Result::ok),
        }
    }
    if let [Some(base), Some(max)] = delays
        && max < base
    {
        return fail(d, "max_delay", "shorter than the base delay".into());
    }
    Some((attempts, delays[0], delays[1]))
}

fn fail<T>(d: &mut Dialog, key: &str, why: String) -> Option<T> {
    d.fail(key, why);
    None
}

/// The write a destination form describes.
pub(crate) fn build(d: &mut Dialog) -> Option<WriteOp> {
    let (attempts, base, max) = numbers(d)?;
    let description = d.text("description");
    let url = d.text("url");
    let req = match d.kind.clone() {
        Kind::Write(Action::CREATE, _) => {
            let mut b = CreateEventDestination::webhook(d.text("name"), url);
            b.description = (!description.is_empty()).then_some(description);
            let choice = d.field("retry").map_or(0, Field::choice_index);
            let strategy = choice
                .checked_sub(1)
                .and_then(|i| STRATEGIES.get(i))
                .copied();
            if strategy.is_some() || attempts.is_some() || base.is_some() || max.is_some() {
                b.retry = Some(RetryPolicy::from_input(strategy, attempts, base, max));
            }
            ApiRequest::create_event_destination(&b)
        }
        Kind::Write(Action::EDIT, Some(id)) => {
            let changed = |k: &str| d.field(k).is_some_and(Field::is_dirty);
            let retry_changed = ["retry", "max_attempts", "base_delay", "max_delay"]
                .into_iter()
                .any(changed);
            let strategy = d
                .field("retry")
                .and_then(|f| STRATEGIES.get(f.choice_index()))
                .copied();
            let b = UpdateEventDestination {
                name: changed("name").then(|| d.text("name")),
                description: changed("description").then_some(description),
                webhook: (!url.is_empty()).then_some(WebhookInput { url }),
                retry: retry_changed
                    .then(|| RetryPolicy::from_input(strategy, attempts, base, max)),
            };
            if b == UpdateEventDestination::default() {
                d.message = Some("Nothing changed".into());
                return None;
            }
            ApiRequest::update_event_destination(&id, &b)
        }
        _ => return None,
    };
    Some(WriteOp::Op(Tab::EventDestinations, req))
}
