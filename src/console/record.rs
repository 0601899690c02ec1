//! A loaded resource: the typed item beside the JSON exactly as received (for the raw view).
//! Both are shared (`Arc`): filtered and sorted views copy rows, and a copy must cost a pointer,
//! not a deep clone of the JSON.
use std::sync::Arc;

use serde_json::Value;

use super::tab::Tab;
use crate::api::Error;
use crate::api::page::Pagination;

/// The typed form of one resource: the registry's.
pub(crate) use crate::resource::AnyItem as Item;

/// One row of a list or the subject of a detail pane.
#[derive(Clone, PartialEq)]
pub(crate) struct Record {
    /// Typed view of the item.
    pub(crate) item: Item,
    /// The item's JSON as received (key order kept).
    pub(crate) raw: Arc<Value>,
    /// Only when the received text holds a control, bidi or invisible character: the item
    /// decoded again from its JSON with every string through the one sanitizer, made once here
    /// at decode time so that views never draw the hazard and never redo the work per frame.
    pub(crate) display: Option<Item>,
}

impl Record {
    /// The resource id.
    pub(crate) fn id(&self) -> &str {
        self.item.id()
    }

    /// The item as views show it: the sanitised copy when there is one (actions keep `item`).
    pub(crate) fn shown(&self) -> &Item {
        self.display.as_ref().unwrap_or(&self.item)
    }
}

// Records hold signing secrets: Debug shows only the id.
impl std::fmt::Debug for Record {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Record({})", self.id())
    }
}

/// Decodes one item of the tab's resource from its JSON.
pub(crate) fn decode_item(tab: Tab, raw: Value, status: u16) -> Result<Record, Error> {
    use crate::text::sanitize::{json_for_display, json_has_hazard};
    let item = typed_item(tab, &raw, status)?;
    // Should the sanitised copy not decode, the terminal backend still filters every cell.
    let display = json_has_hazard(&raw)
        .then(|| typed_item(tab, &json_for_display(&raw), status).ok())
        .flatten();
    Ok(Record {
        item,
        raw: Arc::new(raw),
        display,
    })
}

fn typed_item(tab: Tab, raw: &Value, status: u16) -> Result<Item, Error> {
    Item::decode(tab, raw).map_err(|e| Error::Decode {
        status,
        detail: e.to_string(),
    })
}

/// Decodes a single-item reply body.
pub(crate) fn decode_item_body(tab: Tab, status: u16, body: &str) -> Result<Record, Error> {
    let raw: Value = crate::api::client::decode(status, body)?;
    decode_item(tab, raw, status)
}

/// A decoded list page.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct PageData {
    /// The page's items in server order.
    pub(crate) records: Vec<Record>,
    /// Paging flags.
    pub(crate) pagination: Pagination,
}

/// Decodes a list reply body: the envelope, then each item to the tab's type.
pub(crate) fn decode_page_body(tab: Tab, status: u16, body: &str) -> Result<PageData, Error> {
    #[derive(serde::Deserialize)]
    struct Envelope {
        items: Vec<Value>,
        #[serde(default)]
        pagination: Pagination,
    }
    let env: Envelope = crate::api::client::decode(status, body)?;
    let records = env
        .items
        .into_iter()
        .map(|raw| decode_item(tab, raw, status))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(PageData {
        records,
        pagination: env.pagination,
    })
}
