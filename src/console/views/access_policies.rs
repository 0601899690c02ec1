//! Access policies: what each grants; a team's assign picker offers the custom ones.
use ratatui::text::Line;

use super::kit::ViewCtx;
use crate::api::model::{AccessPolicy, PolicyType};
use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::forms::picker::PickItem;
use crate::console::keymap::Action;
use crate::resource::access_policies::{ACCESS_POLICIES, AccessPolicies};

impl super::DetailView for AccessPolicies {
    fn detail(item: &AccessPolicy, ctx: &ViewCtx) -> Vec<Line<'static>> {
        super::described::detail(&ACCESS_POLICIES, item, ctx)
    }

    /// Only a custom policy can be assigned to a team.
    fn pick(p: &AccessPolicy) -> Option<PickItem> {
        (p.kind == PolicyType::Custom).then(|| PickItem {
            id: p.id.clone(),
            label: p.name.clone(),
            detail: p.slug.clone().unwrap_or_default(),
        })
    }

    fn dialog(_action: Action, _item: Option<&AccessPolicy>) -> Option<Dialog> {
        None
    }

    fn build(_d: &mut Dialog) -> Option<WriteOp> {
        None
    }
}
