//! Picking a member from what an operator types (an actor id, an email or part of a name), and a
//! team's members read from each member's `actor.teams[]`. Pure functions over loaded members, so
//! the headless commands and the console resolve the same way.
use super::model::Member;

/// Why no single member was picked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MemberLookupError {
    /// Nothing was typed.
    #[error("give an actor id (oac_…), an email or part of a name")]
    Empty,
    /// No member matches.
    #[error("no member matches {query:?}")]
    NotFound {
        /// What was typed.
        query: String,
    },
    /// Several members match; they are listed so the operator can say which.
    #[error("{} members match {query:?}", candidates.len())]
    Ambiguous {
        /// What was typed.
        query: String,
        /// The matching members, by name.
        candidates: Vec<Member>,
    },
}

/// Whether `query` is written like an actor id, which is used as given without a lookup.
#[must_use]
pub fn is_actor_id(query: &str) -> bool {
    let q = query.trim();
    q.starts_with("oac_") && q.len() > 4 && q.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The one member `query` names: an exact actor or member id, else an exact email (any case),
/// else a case-insensitive fragment of a name or email. When a fragment matches several, a
/// member whose whole name equals it (any case) wins; otherwise all of them come back in the error.
///
/// # Errors
/// [`MemberLookupError`]: nothing typed, no match, or several matches (listed).
pub fn resolve_member<'a>(
    members: &'a [Member],
    query: &str,
) -> Result<&'a Member, MemberLookupError> {
    let q = query.trim();
    if q.is_empty() {
        return Err(MemberLookupError::Empty);
    }
    if let Some(m) = members.iter().find(|m| m.actor_id == q || m.id == q) {
        return Ok(m);
    }
    let lower = q.to_lowercase();
    let by_email: Vec<&Member> = members
        .iter()
        .filter(|m| m.contact_email().is_some_and(|e| e.to_lowercase() == lower))
        .collect();
    if let [one] = by_email.as_slice() {
        return Ok(one);
    }
    if by_email.len() > 1 {
        return Err(ambiguous(q, by_email));
    }
    let by_fragment: Vec<&Member> = members
        .iter()
        .filter(|m| {
            m.display_name().to_lowercase().contains(&lower)
                || m.contact_email()
                    .is_some_and(|e| e.to_lowercase().contains(&lower))
        })
        .collect();
    match by_fragment.as_slice() {
        [] => Err(MemberLookupError::NotFound {
            query: q.to_string(),
        }),
        [one] => Ok(one),
        several => {
            let whole: Vec<&&Member> = several
                .iter()
                .filter(|m| m.display_name().to_lowercase() == lower)
                .collect();
            match whole.as_slice() {
                [one] => Ok(one),
                _ => Err(ambiguous(q, by_fragment)),
            }
        }
    }
}

fn ambiguous(query: &str, mut found: Vec<&Member>) -> MemberLookupError {
    found.sort_by(|a, b| {
        a.display_name()
            .to_lowercase()
            .cmp(&b.display_name().to_lowercase())
            .then_with(|| a.actor_id.cmp(&b.actor_id))
    });
    MemberLookupError::Ambiguous {
        query: query.to_string(),
        candidates: found.into_iter().cloned().collect(),
    }
}

/// The members of the team with this id, as their `actor.teams[]` say, in the order given.
#[must_use]
pub fn team_members<'a>(members: &'a [Member], team_id: &str) -> Vec<&'a Member> {
    members.iter().filter(|m| m.in_team(team_id)).collect()
}

/// The members not in the team with this id (those a team can still take).
#[must_use]
pub fn non_members<'a>(members: &'a [Member], team_id: &str) -> Vec<&'a Member> {
    members.iter().filter(|m| !m.in_team(team_id)).collect()
}

/// `Name <email> (oac_…)`: how a member is named in messages. Raw server text: sanitize before
/// it reaches a terminal.
#[must_use]
pub fn member_label(m: &Member) -> String {
    match m.contact_email() {
        Some(e) => format!("{} <{e}> ({})", m.display_name(), m.actor_id),
        None => format!("{} ({})", m.display_name(), m.actor_id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(actor: &str, name: &str, email: &str) -> Member {
        let v = serde_json::json!({
            "id": format!("om_{actor}"), "status": "active", "role": "member",
            "user_id": "usr_1", "actor_id": format!("oac_{actor}"), "name": name,
            "email": email, "created_at": "2025-10-24T15:37:41.140Z",
            "updated_at": "2025-10-24T15:37:41.140Z",
        });
        serde_json::from_value(v).expect("member")
    }

    fn people() -> Vec<Member> {
        vec![
            member("a", "Ada Lovelace", "ada@example.com"),
            member("b", "Grace Hopper", "grace@example.com"),
            member("c", "Ann", "ann@example.com"),
            member("d", "Anna Karenina", "anna@example.com"),
        ]
    }

    #[test]
    fn ids_emails_and_fragments() {
        let ms = people();
        let pick = |q: &str| resolve_member(&ms, q).map(|m| m.actor_id.clone());
        assert_eq!(pick("oac_b").as_deref(), Ok("oac_b"));
        assert_eq!(pick("om_a").as_deref(), Ok("oac_a"));
        assert_eq!(pick(" GRACE@example.com ").as_deref(), Ok("oac_b"));
        assert_eq!(pick("lovel").as_deref(), Ok("oac_a"));
        // "ann" is in two names, but one name is exactly it.
        assert_eq!(pick("ANN").as_deref(), Ok("oac_c"));
        assert_eq!(pick("").unwrap_err(), MemberLookupError::Empty);
        assert!(matches!(
            pick("zed"),
            Err(MemberLookupError::NotFound { .. })
        ));
    }

    #[test]
    fn several_matches_are_listed_by_name() {
        let ms = people();
        let Err(MemberLookupError::Ambiguous { candidates, .. }) = resolve_member(&ms, "an") else {
            panic!("expected several");
        };
        let names: Vec<&str> = candidates.iter().map(Member::display_name).collect();
        assert_eq!(names, ["Ann", "Anna Karenina"]);
        assert_eq!(
            member_label(&candidates[0]),
            "Ann <ann@example.com> (oac_c)"
        );
    }

    #[test]
    fn actor_id_shape() {
        assert!(is_actor_id("oac_0mh50lvdgOEHdkMux2rdQM"));
        assert!(!is_actor_id("oac_"));
        assert!(!is_actor_id("ada"));
        assert!(!is_actor_id("oac_x/../y"));
    }
}
