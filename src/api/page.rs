//! The list envelope and the shared list query (`limit`, `after`, `before`, `cursor`, `order`).
use serde::{Deserialize, Serialize};

/// Sort order by id, i.e. by creation time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Oldest first (the API's default).
    #[default]
    Asc,
    /// Newest first.
    Desc,
}

impl Order {
    /// The wire text.
    pub fn as_str(self) -> &'static str {
        match self {
            Order::Asc => "asc",
            Order::Desc => "desc",
        }
    }

    /// The other order.
    pub fn flipped(self) -> Self {
        match self {
            Order::Asc => Order::Desc,
            Order::Desc => Order::Asc,
        }
    }
}

impl std::str::FromStr for Order {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "asc" => Ok(Order::Asc),
            "desc" => Ok(Order::Desc),
            other => Err(format!("order must be asc or desc, not {other:?}")),
        }
    }
}

/// The shared list query parameters. Unset fields are not sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListQuery {
    /// 1–100; the server defaults to 20.
    pub limit: Option<u32>,
    /// A raw id: the items after it.
    pub after: Option<String>,
    /// A raw id: the items right before it.
    pub before: Option<String>,
    /// An opaque `cur_…` token.
    pub cursor: Option<String>,
    /// Sort order.
    pub order: Option<Order>,
}

impl ListQuery {
    /// The query as key/value pairs in a stable order.
    pub fn pairs(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        if let Some(l) = self.limit {
            out.push(("limit".into(), l.to_string()));
        }
        if let Some(a) = &self.after {
            out.push(("after".into(), a.clone()));
        }
        if let Some(b) = &self.before {
            out.push(("before".into(), b.clone()));
        }
        if let Some(c) = &self.cursor {
            out.push(("cursor".into(), c.clone()));
        }
        if let Some(o) = self.order {
            out.push(("order".into(), o.as_str().into()));
        }
        out
    }
}

/// Paging flags of a list reply. There is no total and no cursor.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pagination {
    /// More items come before the first one.
    #[serde(default)]
    pub has_more_before: bool,
    /// More items come after the last one.
    #[serde(default)]
    pub has_more_after: bool,
}

/// `{ "items": [...], "pagination": {...} }`. `__typename` is ignored when read and written as
/// `"list"`, as the real service sends it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Page<T> {
    /// The page's items in the requested order.
    pub items: Vec<T>,
    /// Paging flags.
    #[serde(default)]
    pub pagination: Pagination,
}

impl<T> Default for Page<T> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            pagination: Pagination::default(),
        }
    }
}

impl<T: Serialize> Serialize for Page<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Page", 3)?;
        st.serialize_field("__typename", "list")?;
        st.serialize_field("items", &self.items)?;
        st.serialize_field("pagination", &self.pagination)?;
        st.end()
    }
}
