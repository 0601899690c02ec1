//! Colours and text styles, in one place so that themes can be swapped later.
use ratatui::style::{Color, Modifier, Style};

/// The styles the views draw with. Uses the 16 basic colours only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    /// Plain text.
    pub(crate) text: Style,
    /// Labels, secondary text.
    pub(crate) muted: Style,
    /// The active tab, titles.
    pub(crate) accent: Style,
    /// Inactive tabs.
    pub(crate) tab: Style,
    /// The selected row.
    pub(crate) selected: Style,
    /// Column headers.
    pub(crate) header: Style,
    /// Errors.
    pub(crate) error: Style,
    /// Success.
    pub(crate) ok: Style,
    /// Warnings, in-progress states.
    pub(crate) warn: Style,
    /// Key names in help and footer.
    pub(crate) key: Style,
    /// Section headings in detail panes.
    pub(crate) section: Style,
}

impl Default for Theme {
    fn default() -> Self {
        Self::dark()
    }
}

impl Theme {
    /// The default dark theme.
    pub(crate) fn dark() -> Self {
        Self {
            text: Style::new(),
            muted: Style::new().fg(Color::DarkGray),
            accent: Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            tab: Style::new().fg(Color::Gray),
            selected: Style::new().add_modifier(Modifier::REVERSED),
            header: Style::new().add_modifier(Modifier::BOLD),
            error: Style::new().fg(Color::Red),
            ok: Style::new().fg(Color::Green),
            warn: Style::new().fg(Color::Yellow),
            key: Style::new().fg(Color::Cyan),
            section: Style::new().fg(Color::Blue).add_modifier(Modifier::BOLD),
        }
    }
}

impl Theme {
    /// The light theme: dark text colours that read on a white background.
    pub(crate) fn light() -> Self {
        Self {
            text: Style::new(),
            muted: Style::new().fg(Color::DarkGray),
            accent: Style::new().fg(Color::Blue).add_modifier(Modifier::BOLD),
            tab: Style::new().fg(Color::Black),
            selected: Style::new().add_modifier(Modifier::REVERSED),
            header: Style::new().add_modifier(Modifier::BOLD),
            error: Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            ok: Style::new().fg(Color::Green),
            warn: Style::new().fg(Color::Magenta),
            key: Style::new().fg(Color::Blue),
            section: Style::new().fg(Color::Blue).add_modifier(Modifier::BOLD),
        }
    }

    /// No colour at all (`NO_COLOR`): emphasis through bold, dim, underline and reverse only.
    pub(crate) fn plain() -> Self {
        Self {
            text: Style::new(),
            muted: Style::new().add_modifier(Modifier::DIM),
            accent: Style::new().add_modifier(Modifier::BOLD),
            tab: Style::new(),
            selected: Style::new().add_modifier(Modifier::REVERSED),
            header: Style::new().add_modifier(Modifier::BOLD),
            error: Style::new().add_modifier(Modifier::BOLD),
            ok: Style::new(),
            warn: Style::new().add_modifier(Modifier::UNDERLINED),
            key: Style::new().add_modifier(Modifier::BOLD),
            section: Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        }
    }

    /// The theme named in the config (`dark`, `light`); `no_color` (the `NO_COLOR` variable is
    /// set and not empty) wins over any name. An unknown name gives dark and a message.
    pub(crate) fn choose(name: Option<&str>, no_color: bool) -> (Theme, Option<String>) {
        if no_color {
            return (Theme::plain(), None);
        }
        match name {
            None | Some("dark") => (Theme::dark(), None),
            Some("light") => (Theme::light(), None),
            Some(other) => (
                Theme::dark(),
                Some(format!(
                    "theme {other:?} is unknown (dark or light); using dark"
                )),
            ),
        }
    }

    /// Whether the environment asks for no colour (<https://no-color.org>).
    pub fn no_color_env() -> bool {
        std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
    }
}
