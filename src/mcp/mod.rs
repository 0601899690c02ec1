//! `switchboard mcp`: the same operations as the headless commands, served to agents as MCP tools
//! over stdio (the official Rust SDK, `rmcp`). Every result and every error passes the one
//! redaction policy and then the one sanitizer before it leaves; write tools exist only when the
//! profile allows writes and `--allow-writes` was given.
mod tools;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

pub use tools::{TOOLS, ToolDef};

use crate::api::Client;

/// Why the server stopped other than by its client closing the connection.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The client never completed the MCP handshake.
    #[error("MCP handshake: {0}")]
    Handshake(String),
    /// The server's task failed.
    #[error("MCP server: {0}")]
    Run(String),
}

/// The MCP server: an API client and whether write tools are served.
#[derive(Clone)]
pub struct Server {
    client: Client,
    writes: bool,
}

impl Server {
    /// A server on `client`; `writes` only when the profile allows writes and the user asked.
    pub fn new(client: Client, writes: bool) -> Self {
        Self { client, writes }
    }

    /// The tools this server offers.
    pub fn tools(&self) -> impl Iterator<Item = &'static ToolDef> + '_ {
        tools::all().filter(|t| self.writes || !t.write)
    }

    /// Serves MCP on standard input and output until the client closes them.
    ///
    /// # Errors
    /// The handshake or the server's task failed.
    pub async fn run_stdio(self) -> Result<(), McpError> {
        let running = self
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| McpError::Handshake(e.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|e| McpError::Run(e.to_string()))?;
        Ok(())
    }
}

/// What leaves the server: secrets masked by the one policy, then every string through the one
/// sanitizer (an agent may echo it to a terminal).
fn safe(v: &Value) -> Value {
    crate::text::sanitize::json_for_display(&crate::text::redact::masked(v))
}

fn tool(def: &ToolDef) -> Tool {
    let annotations = ToolAnnotations::new()
        .read_only(!def.write)
        .destructive(def.name.starts_with("delete_"));
    Tool::new(def.name, def.description, def.input_schema()).with_annotations(annotations)
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let mode = if self.writes {
            "Writes are allowed: create/update teams and destinations, delete destinations."
        } else {
            "Read-only: no tool changes anything on the platform."
        };
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "switchboard",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(format!(
                "Investigate webhook deliveries of the MCP platform: list notifications, read an \
                 attempt, check its signature, see a destination's health, replay to a receiver on \
                 this machine. Secrets are masked. {mode}"
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.tools().map(tool).collect(),
        ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools().find(|t| t.name == name).map(tool)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(def) = tools::all().find(|t| t.name == request.name) else {
            return Err(ErrorData::invalid_params(
                format!("no tool {:?}", crate::text::line(&request.name)),
                None,
            ));
        };
        if def.write && !self.writes {
            let refused = tools::ToolError::Usage(format!(
                "refused: {} writes, and this server is read-only (it needs a profile that \
                 allows writes and `switchboard mcp --allow-writes`)",
                def.name
            ));
            return Ok(CallToolResult::structured_error(safe(&refused.to_json())).into());
        }
        let args = request.arguments.unwrap_or_default();
        let result = match tools::call(&self.client, def, args).await {
            Ok(v) => CallToolResult::structured(safe(&v)),
            Err(e) => CallToolResult::structured_error(safe(&e.to_json())),
        };
        Ok(result.into())
    }
}
