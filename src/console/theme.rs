//! Colours and text styles, in one place so that themes can be swapped later.
use ratatui::style::{Color, Modifier, Style};

/// The styles the views draw with. Uses the 16 basic colours only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    /// Plain text.
    pub text: Style,
    /// Labels, secondary text.
    pub muted: Style,
    /// The active tab, titles.
    pub accent: Style,
    /// Inactive tabs.
    pub tab: Style,
    /// The selected row.
    pub selected: Style,
    /// Column headers.
    pub header: Style,
    /// Errors.
    pub error: Style,
    /// Success.
    pub ok: Style,
    /// Warnings, in-progress states.
    pub warn: Style,
    /// Key names in help and footer.
    pub key: Style,
    /// Section headings in detail panes.
    pub section: Style,
}

impl Default for Theme {
    fn default() -> Self {
        Self::dark()
    }
}

impl Theme {
    /// The default dark theme.
    pub fn dark() -> Self {
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
