//! One bound for every walk over a list's pages (issue 36): `--all`, lookups, `wait`, `forward`'s
//! start and catch-up count, `destinations stats`, recover's selection. A server whose cursor
//! always advances must neither keep us reading forever nor fill memory, and a partial answer
//! must not pass for a whole one: past the [`Budget`], a walk fails with
//! [`Error::TooManyPages`], naming the `--after` id to continue from.
use super::error::Error;

/// Pages a walk reads by default.
pub const DEFAULT_PAGES: usize = 200;
/// Items a walk reads by default (200 full pages of 100).
pub const DEFAULT_ITEMS: usize = 20_000;
/// Bytes of page bodies a walk reads by default.
pub const DEFAULT_BYTES: u64 = 64 * 1024 * 1024;

/// How much one walk may read: pages, items and bytes of page bodies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Pages.
    pub pages: usize,
    /// Items (selected or not).
    pub items: usize,
    /// Bytes of page bodies as received.
    pub bytes: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Self {
            pages: DEFAULT_PAGES,
            items: DEFAULT_ITEMS,
            bytes: DEFAULT_BYTES,
        }
    }
}

impl Budget {
    /// `--max-pages N`: `N` pages, with the items and bytes raised in proportion past their
    /// defaults (never lowered), so that raising the pages is never undone by the others.
    #[must_use]
    pub fn with_max_pages(pages: usize) -> Self {
        let d = Self::default();
        let pages = pages.max(1);
        Self {
            pages,
            items: d.items.max(pages.saturating_mul(d.items / d.pages)),
            bytes: d.bytes.max(
                u64::try_from(pages)
                    .unwrap_or(u64::MAX)
                    .saturating_mul(d.bytes / d.pages as u64),
            ),
        }
    }

    /// A meter that counts one walk against this budget.
    #[must_use]
    pub fn meter(self) -> Meter {
        Meter {
            budget: self,
            pages: 0,
            items: 0,
            bytes: 0,
        }
    }
}

/// What one walk has read so far ([`Budget::meter`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meter {
    budget: Budget,
    /// Pages read.
    pub pages: usize,
    /// Items read.
    pub items: usize,
    /// Bytes read.
    pub bytes: u64,
}

impl Meter {
    /// Counts a page of `items` items and `bytes` bytes.
    pub fn count(&mut self, items: usize, bytes: usize) {
        self.pages += 1;
        self.items = self.items.saturating_add(items);
        self.bytes = self
            .bytes
            .saturating_add(u64::try_from(bytes).unwrap_or(u64::MAX));
    }

    /// Whether the walk may read one more page.
    #[must_use]
    pub fn has_room(&self) -> bool {
        self.pages < self.budget.pages
            && self.items < self.budget.items
            && self.bytes < self.budget.bytes
    }

    /// Before reading the page after `last`: [`Error::TooManyPages`] when the budget is spent.
    ///
    /// # Errors
    /// [`Error::TooManyPages`], naming `last` as where to continue.
    pub fn next(&self, last: Option<&str>) -> Result<(), Error> {
        if self.has_room() {
            Ok(())
        } else {
            Err(self.exceeded(last))
        }
    }

    /// The error of a walk stopped here, to continue after `last`.
    #[must_use]
    pub fn exceeded(&self, last: Option<&str>) -> Error {
        Error::TooManyPages {
            pages: self.pages,
            items: self.items,
            bytes: self.bytes,
            last: last.map(str::to_string),
        }
    }

    /// The budget counted against.
    #[must_use]
    pub fn budget(&self) -> Budget {
        self.budget
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_limit_binds_and_max_pages_raises_them_together() {
        let mut m = Budget::default().meter();
        for _ in 0..199 {
            m.count(100, 1000);
        }
        assert!(m.next(Some("x")).is_ok());
        m.count(100, 1000);
        let e = m.next(Some("x_199")).expect_err("200 pages");
        let text = e.to_string();
        assert!(
            text.contains("stopped after 200 pages (20000 items") && text.contains("--after x_199"),
            "{text}"
        );
        let mut big = Budget::default().meter();
        big.count(1, usize::try_from(DEFAULT_BYTES).unwrap_or(usize::MAX));
        assert!(big.next(None).is_err(), "the bytes bind");
        let mut many = Budget::default().meter();
        many.count(DEFAULT_ITEMS, 10);
        assert!(many.next(None).is_err(), "the items bind");
        let raised = Budget::with_max_pages(1000);
        assert_eq!(
            (raised.pages, raised.items, raised.bytes),
            (1000, 100_000, 1000 * (DEFAULT_BYTES / 200))
        );
        assert_eq!(Budget::with_max_pages(5).items, DEFAULT_ITEMS);
    }
}
