//! Before the console starts: the tabs of the generation used, and a pin the server contradicts
//! said in the header (and once in full, as a toast), not obeyed blindly.
use super::app::App;
use super::state::ToastKind;
use crate::api::detect::Chosen;

/// Presets the app for what the client chose: the generation's tabs, and the header's note when
/// the server contradicts the pin (its generation is used instead).
pub(crate) fn prepare(app: &mut App, chosen: &Chosen) {
    if let Some(g) = chosen.generation {
        app.preset_generation(g);
    }
    let Some(note) = chosen.contradiction() else {
        return;
    };
    let place = &mut app.state.base_url;
    // The header names what is served (from the cache when there is one), then the pin.
    if !place.contains(" · ") {
        let served = chosen.detected.map_or("unrecognised", |g| g.as_str());
        place.push_str(&format!(" · {served}"));
    }
    if let Some(pin) = chosen.pin {
        place.push_str(&format!(" (pinned {}, not served)", pin.generation));
    }
    app.state.toast(ToastKind::Error, crate::text::line(note));
}
