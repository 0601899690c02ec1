//! How a client of this process reaches a running service with the keys it holds: the newer
//! generations split the organization key from the instance key and id, and a client given only
//! the organization key gets 400 on every instance path (the demo's console did).
use super::RunningService;
use crate::api::ClientOptions;

impl RunningService {
    /// Client options that reach every path this service serves: on the newer generations the
    /// instance key for instance paths, the organization key for `/organization/*`, and the
    /// seeded instance's id; on pulsar the one key.
    pub fn client_options(&self) -> ClientOptions {
        match &self.instance_key {
            Some(instance) => ClientOptions {
                base_url: self.base_url.clone(),
                api_key: instance.clone(),
                organization_key: Some(self.api_key.clone()),
                instance_id: self.instance_id.clone(),
                ..ClientOptions::default()
            },
            None => ClientOptions {
                base_url: self.base_url.clone(),
                api_key: self.api_key.clone(),
                ..ClientOptions::default()
            },
        }
    }
}
