# The controller image: `kubectl-kueue run-controller`, as the Deployment that
# `kubectl kueue install` creates runs it. scripts/image.sh builds the same image without a
# Docker daemon or a registry (an OCI layout from the local binary); this file is for those
# who build with Docker.
#
#   docker build -t kubectl-kueue:0.1.0 .
#   kubectl kueue install --image kubectl-kueue:0.1.0
#
# Build stage: a release build of the one binary (kube-rs with rustls/ring: no OpenSSL).
FROM rust:1-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src ./src
COPY benches ./benches
COPY examples ./examples
RUN cargo build --release --locked --bin kubectl-kueue \
    && strip target/release/kubectl-kueue

# Runtime: distroless, non-root, nothing but the binary (and CA certificates).
FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/target/release/kubectl-kueue /kubectl-kueue
USER 65532:65532
EXPOSE 8443 8081
ENTRYPOINT ["/kubectl-kueue"]
CMD ["run-controller"]
