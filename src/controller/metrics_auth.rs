//! Who may read `/metrics` (and, with the same reviews and caches, the visibility API):
//! upstream's (controller-runtime's) authentication and authorization filter. The bearer
//! token is checked with a TokenReview, then the user's right to the request with a
//! SubjectAccessReview on the non-resource URL (`get` on `/metrics`), so a
//! scraper needs the `kueue-metrics-reader` ClusterRole and the controller the
//! `tokenreviews`/`subjectaccessreviews` create rights.
//!
//! Answers as upstream: no or an unauthenticated token 401 `Unauthorized` (anonymous is off);
//! not allowed 403 `Authorization denied for user <name>`; a review that fails 500.
//! Caches as upstream: token reviews 1 min, allowed 5 min, denied 30 s.
//!
//! Invariants: a token is never logged, nor kept: the caches key on its SHA-1; the caches are
//! bounded (4096 entries each), so random tokens cannot grow memory.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec, UserInfo};
use k8s_openapi::api::authorization::v1::{
    NonResourceAttributes, ResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use kube::api::{Api, PostParams};
use sha1::{Digest, Sha1};

const AUTHN_TTL: Duration = Duration::from_secs(60);
const ALLOW_TTL: Duration = Duration::from_secs(300);
const DENY_TTL: Duration = Duration::from_secs(30);
/// Each review's deadline, as upstream's.
const REVIEW_TIMEOUT: Duration = Duration::from_secs(10);
/// Attempts of a review that errors (backoff 500 ms, x1.5), as upstream's.
const ATTEMPTS: u32 = 5;
const MAX_ENTRIES: usize = 4096;

/// A refusal: the status and the body.
pub type Refusal = (StatusCode, String);

/// What a request asks to do, as a SubjectAccessReview states it.
#[derive(Debug, Clone, serde::Serialize)]
pub enum Access {
    /// A non-resource URL (`get` on `/metrics`).
    Path { verb: String, path: String },
    /// A resource (the visibility API's `clusterqueues/pendingworkloads`, say).
    Resource(Box<ResourceAttributes>),
}

struct Cache<V> {
    entries: HashMap<String, (Instant, V)>,
}

impl<V: Clone> Cache<V> {
    fn new() -> Self {
        Cache {
            entries: HashMap::new(),
        }
    }

    fn get(&mut self, key: &str) -> Option<V> {
        match self.entries.get(key) {
            Some((until, v)) if *until > Instant::now() => Some(v.clone()),
            Some(_) => {
                self.entries.remove(key);
                None
            }
            None => None,
        }
    }

    fn put(&mut self, key: String, value: V, ttl: Duration) {
        let now = Instant::now();
        if self.entries.len() >= MAX_ENTRIES {
            self.entries.retain(|_, (until, _)| *until > now);
            if self.entries.len() >= MAX_ENTRIES {
                self.entries.clear();
            }
        }
        self.entries.insert(key, (now + ttl, value));
    }
}

/// The filter, shared by every `/metrics` request.
pub struct MetricsAuth {
    client: kube::Client,
    authn: Mutex<Cache<Option<UserInfo>>>,
    authz: Mutex<Cache<bool>>,
}

fn token_key(token: &str) -> String {
    let digest = Sha1::digest(token.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bearer token of an `Authorization` header value.
fn bearer(header: Option<&str>) -> Option<&str> {
    let value = header?.trim();
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Runs `review` up to [`ATTEMPTS`] times while it errors or times out.
async fn with_retries<T, F, Fut>(what: &str, mut review: F) -> Result<T, ()>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, kube::Error>>,
{
    let mut backoff = Duration::from_millis(500);
    for attempt in 1..=ATTEMPTS {
        match tokio::time::timeout(REVIEW_TIMEOUT, review()).await {
            Ok(Ok(v)) => return Ok(v),
            Ok(Err(e)) => tracing::warn!(error = %e, attempt, "{what} failed"),
            Err(_) => tracing::warn!(attempt, "{what} timed out"),
        }
        if attempt < ATTEMPTS {
            tokio::time::sleep(backoff).await;
            backoff = backoff.mul_f64(1.5);
        }
    }
    Err(())
}

impl MetricsAuth {
    pub fn new(client: kube::Client) -> MetricsAuth {
        MetricsAuth {
            client,
            authn: Mutex::new(Cache::new()),
            authz: Mutex::new(Cache::new()),
        }
    }

    /// Whether the request (its `Authorization` header, lowercase HTTP verb, path) may go on.
    pub async fn check(
        &self,
        authorization: Option<&str>,
        verb: &str,
        path: &str,
    ) -> Result<(), Refusal> {
        let unauthorized = || (StatusCode::UNAUTHORIZED, "Unauthorized".to_string());
        let user = self
            .authenticate_header(authorization)
            .await?
            .ok_or_else(unauthorized)?;
        let access = Access::Path {
            verb: verb.to_string(),
            path: path.to_string(),
        };
        self.authorize(&user, &access).await
    }

    /// The user of a bearer token of an `Authorization` header value (`None`: no bearer
    /// token, or one the API server does not accept).
    pub async fn authenticate_header(
        &self,
        authorization: Option<&str>,
    ) -> Result<Option<UserInfo>, Refusal> {
        match bearer(authorization) {
            Some(token) => self.authenticate(token).await,
            None => Ok(None),
        }
    }

    async fn authenticate(&self, token: &str) -> Result<Option<UserInfo>, Refusal> {
        let key = token_key(token);
        if let Some(user) = self.authn.lock().expect("authn cache").get(&key) {
            return Ok(user);
        }
        let api: Api<TokenReview> = Api::all(self.client.clone());
        let review = TokenReview {
            spec: TokenReviewSpec {
                token: token.to_string(),
                audiences: None,
            },
            ..Default::default()
        };
        let params = PostParams::default();
        let answer = with_retries("TokenReview", || api.create(&params, &review))
            .await
            .map_err(|()| {
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Authentication failed".to_string(),
                )
            })?;
        let status = answer.status.unwrap_or_default();
        let user = status
            .authenticated
            .unwrap_or(false)
            .then(|| status.user.unwrap_or_default());
        self.authn
            .lock()
            .expect("authn cache")
            .put(key, user.clone(), AUTHN_TTL);
        Ok(user)
    }

    /// Whether `user` may do `access`: `Ok`, or 403 (denied) or 500 (the review failed),
    /// each with the reason in upstream's words for `/metrics`.
    pub async fn authorize(&self, user: &UserInfo, access: &Access) -> Result<(), Refusal> {
        let name = user.username.clone().unwrap_or_default();
        let key = serde_json::json!([user, access]).to_string();
        let cached = self.authz.lock().expect("authz cache").get(&key);
        let allowed = match cached {
            Some(allowed) => allowed,
            None => {
                let allowed = self.review_access(user, access).await.map_err(|()| {
                    (
                        StatusCode::INTERNAL_SERVER_ERROR,
                        format!("Authorization for user {name} failed"),
                    )
                })?;
                let ttl = if allowed { ALLOW_TTL } else { DENY_TTL };
                self.authz
                    .lock()
                    .expect("authz cache")
                    .put(key, allowed, ttl);
                allowed
            }
        };
        if allowed {
            Ok(())
        } else {
            tracing::debug!(user = %name, ?access, "access denied");
            Err((
                StatusCode::FORBIDDEN,
                format!("Authorization denied for user {name}"),
            ))
        }
    }

    async fn review_access(&self, user: &UserInfo, access: &Access) -> Result<bool, ()> {
        let api: Api<SubjectAccessReview> = Api::all(self.client.clone());
        let review = SubjectAccessReview {
            spec: SubjectAccessReviewSpec {
                user: user.username.clone(),
                groups: user.groups.clone(),
                uid: user.uid.clone(),
                extra: user.extra.clone(),
                non_resource_attributes: match access {
                    Access::Path { verb, path } => Some(NonResourceAttributes {
                        path: Some(path.clone()),
                        verb: Some(verb.clone()),
                    }),
                    Access::Resource(_) => None,
                },
                resource_attributes: match access {
                    Access::Resource(r) => Some((**r).clone()),
                    Access::Path { .. } => None,
                },
            },
            ..Default::default()
        };
        let params = PostParams::default();
        let answer = with_retries("SubjectAccessReview", || api.create(&params, &review)).await?;
        Ok(answer.status.is_some_and(|s| s.allowed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bearer_tokens_count() {
        assert_eq!(bearer(Some("Bearer abc")), Some("abc"));
        assert_eq!(bearer(Some("bearer  abc ")), Some("abc"));
        assert_eq!(bearer(Some("Basic abc")), None);
        assert_eq!(bearer(Some("Bearer ")), None);
        assert_eq!(bearer(None), None);
    }

    #[test]
    fn caches_expire_and_stay_bounded() {
        let mut c = Cache::new();
        c.put("a".into(), true, Duration::from_secs(60));
        c.put("b".into(), true, Duration::ZERO);
        assert_eq!(c.get("a"), Some(true));
        assert_eq!(c.get("b"), None);
        for i in 0..MAX_ENTRIES + 10 {
            c.put(i.to_string(), false, Duration::from_secs(60));
        }
        assert!(c.entries.len() <= MAX_ENTRIES);
        assert_ne!(token_key("x"), "x");
    }
}
