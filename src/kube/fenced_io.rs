//! The leader's write client: kube's default client stack (base URI, auth, extra headers,
//! rustls, connect/read/write timeouts) on TCP connections that check the leader-election
//! fence before every write to the socket.
//!
//! Why at the socket: [`super::apply::Writer`] checks the fence right before it hands a
//! request to the client, but a request still goes through serialisation, the connection pool
//! and perhaps a TLS handshake after that. A process stopped (SIGSTOP, a frozen VM, a long GC
//! pause of the node) inside that gap and continued after its lease ran out would send the
//! request into the next leader's term. Here the last check happens when the bytes are handed
//! to the kernel: a write attempted once the fence is closed fails with `BrokenPipe`, the
//! request is abandoned, and the server sees at most a partial request it discards.
//!
//! Invariants: reads are never fenced (answers to requests already sent still arrive); every
//! write to the socket (TLS handshake records, request headers and bodies) is checked against
//! the fence's clock at that moment; nothing else differs from the client
//! [`super::client::Connection::client`] is.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use hyper::rt::{Read, ReadBufCursor, Write};
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::rt::TokioExecutor;
use kube::client::{Body, ConfigExt};
use kube::{Client, Config};
use tower::{BoxError, ServiceBuilder};

use super::client::Timeouts;
use super::lease::Fence;

/// A client for `config` whose connections refuse to send once `fence` is closed.
pub fn fenced_client(config: &Config, t: Timeouts, fence: Fence) -> anyhow::Result<Client> {
    anyhow::ensure!(
        config.proxy_url.is_none(),
        "a proxy ({}) is configured for the API server; this build of kubectl-kueue connects directly only",
        config
            .proxy_url
            .as_ref()
            .map(|u| u.to_string())
            .unwrap_or_default()
    );
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    let fenced = FencedConnector { inner: http, fence };
    let https = config.rustls_https_connector_with_connector(fenced)?;
    let mut timed = hyper_timeout::TimeoutConnector::new(https);
    timed.set_connect_timeout(Some(t.connect));
    timed.set_read_timeout(t.read);
    timed.set_write_timeout(Some(t.write));
    // The read timeout counts from when a request is sent, not from when its pooled
    // connection went idle.
    timed.set_reset_reader_on_write(t.read.is_some());
    let hyper_client: hyper_util::client::legacy::Client<_, Body> =
        hyper_util::client::legacy::Client::builder(TokioExecutor::new()).build(timed);
    let service = ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .option_layer(config.auth_layer()?)
        .layer(config.extra_headers_layer()?)
        .map_err(BoxError::from)
        .service(hyper_client);
    Ok(Client::new(service, config.default_namespace.clone()))
}

/// Plain TCP connections (TLS goes on top of them) that carry the fence.
#[derive(Clone)]
struct FencedConnector {
    inner: HttpConnector,
    fence: Fence,
}

impl tower::Service<hyper::Uri> for FencedConnector {
    type Response = FencedStream<<HttpConnector as tower::Service<hyper::Uri>>::Response>;
    type Error = <HttpConnector as tower::Service<hyper::Uri>>::Error;
    type Future =
        Pin<Box<dyn std::future::Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, uri: hyper::Uri) -> Self::Future {
        let fence = self.fence.clone();
        let connecting = self.inner.call(uri);
        Box::pin(async move {
            Ok(FencedStream {
                inner: connecting.await?,
                fence,
            })
        })
    }
}

/// A connection whose every write checks the fence first.
struct FencedStream<S> {
    inner: S,
    fence: Fence,
}

impl<S> FencedStream<S> {
    fn refuse_if_fenced(&self) -> io::Result<()> {
        self.fence
            .check()
            .map_err(|e| io::Error::new(io::ErrorKind::BrokenPipe, e))
    }
}

impl<S: Read + Unpin> Read for FencedStream<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: Write + Unpin> Write for FencedStream<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.refuse_if_fenced()?;
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.refuse_if_fenced()?;
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

impl<S: Connection> Connection for FencedStream<S> {
    fn connected(&self) -> Connected {
        self.inner.connected()
    }
}
