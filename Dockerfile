# taskexec container image: build on Debian bookworm, run on bookworm-slim.
FROM debian:bookworm AS build
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        gcc make pkg-config libuv1-dev libpq-dev node-llhttp libcjson-dev librdkafka-dev \
        libhiredis-dev libsodium-dev libcurl4-openssl-dev ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Makefile ./
COPY deps deps
COPY scripts scripts
COPY schema schema
COPY src src
RUN make -j"$(nproc)" all

FROM debian:bookworm-slim
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        libuv1 libpq5 libcjson1 librdkafka1 libhiredis0.14 libsodium23 libcurl4 ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --no-create-home taskexec
COPY --from=build /src/build/taskexec /usr/local/bin/taskexec
USER taskexec
ENV TE_LISTEN_ADDR=0.0.0.0:8080
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s CMD ["/bin/sh", "-c", "exec 3<>/dev/tcp/127.0.0.1/8080"]
ENTRYPOINT ["/usr/local/bin/taskexec"]
CMD ["serve"]
