# The twin-runtime image: every twin in one image, the twin chosen by an argument
# (`--twin stripe`). Build it with `make image`: scripts/image/build.sh stages build/image/twin-runtime/app
# and builds with build/image/twin-runtime as the context, so building one image never reads another's.
# BASE defaults to the official Node image; on machines that cannot pull it, scripts/image/build.sh
# imports a minimal root filesystem made from the local Node.js instead (BASE=twins-node-base:local).
ARG BASE=node:24-bookworm-slim
FROM ${BASE}
# Deliveries go to public addresses only (docs/decisions.md §12); TWINS_EGRESS=any undoes it for local use.
ENV PATH=/usr/local/bin:/usr/bin:/bin NODE_ENV=production TWINS_EGRESS=public TWIN_HOST=127.0.0.1
WORKDIR /app
COPY app/ /app/
USER 10001:10001
HEALTHCHECK --interval=2s --timeout=2s --start-period=2s --retries=3 \
  CMD ["node", "/app/dist/twin-runtime/healthcheck.js"]
ENTRYPOINT ["node", "/app/dist/twin-runtime/main.js"]
