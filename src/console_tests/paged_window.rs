//! The paged table's window (`console/widgets/paged_table.rs`): only one screenful of rows,
//! moved to keep the cursor visible, is formatted.

use ratatui::layout::Rect;

use crate::console::record::decode_item_body;
use crate::console::state::ListPane;
use crate::console::tab::Tab;
use crate::console::widgets::paged_table::visible_window;

fn pane(rows: usize, cursor: usize, offset: usize) -> ListPane {
    let body = include_str!("../../tests/fixtures/callback.json");
    let rec = decode_item_body(Tab::Callbacks, 200, body).expect("fixture decodes");
    let mut list = ListPane {
        cursor,
        offset,
        ..Default::default()
    };
    list.set_rows(vec![rec; rows]);
    list
}

#[test]
fn window_is_one_screenful_from_the_offset() {
    let area = Rect::new(0, 0, 80, 20);
    assert_eq!(
        visible_window(&pane(10_000, 5_000, 4_990), area),
        4_990..5_010
    );
    assert_eq!(visible_window(&pane(3, 0, 0), area), 0..3);
    assert_eq!(visible_window(&pane(0, 0, 0), area), 0..0);
}

#[test]
fn window_moves_to_keep_the_cursor_visible() {
    let area = Rect::new(0, 0, 80, 20);
    assert_eq!(visible_window(&pane(10_000, 9_999, 0), area), 9_980..10_000);
    assert_eq!(visible_window(&pane(100, 3, 50), area), 3..23);
}
