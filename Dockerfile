# syntax=docker/dockerfile:1.7
# One recipe, one small image per app (production dependencies and the compiled app only):
#   docker build --build-arg APP=tokens -t bastion/tokens .          (gateway, tokens, providers,
#                                                                     projects, prompts, message-proxy)
#   docker build --target migrate -t bastion/migrate .              (every service's migrations)
#   docker run bastion/migrate                                      (= pnpm db:migrate)
ARG NODE_VERSION=24.21.0

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /repo
RUN npm install -g pnpm@10.34.9 --loglevel=error
# Dependencies first, so source changes do not refetch them.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch --frozen-lockfile
COPY . .
RUN pnpm install --frozen-lockfile --offline \
 && pnpm db:generate \
 && pnpm build

# An app with only its production dependencies (workspace libraries copied in, compiled).
FROM build AS deploy
ARG APP
RUN test -n "$APP" || (echo "set --build-arg APP=<gateway|tokens|providers|projects|prompts|message-proxy>" && exit 1) \
 && pnpm --filter "@bastion/${APP}" deploy --prod --legacy /out \
 && rm -rf /out/src /out/test

# The migration runner and every service's migrations, in the repository's layout, so
# `node scripts/db-migrate.js` works as it does in a checkout.
FROM build AS migrate-files
RUN pnpm --filter @bastion/persistence deploy --prod --legacy /out/libs/persistence \
 && mkdir -p /out/scripts /out/apps \
 && cp scripts/db-migrate.js /out/scripts/ \
 && for d in apps/*/prisma; do mkdir -p "/out/$d" && cp -r "$d/schema.prisma" "$d/migrations" "/out/$d/"; done

FROM node:${NODE_VERSION}-bookworm-slim AS migrate
ENV NODE_ENV=production
WORKDIR /app
COPY --from=migrate-files --chown=node:node /out /app
USER node
CMD ["node", "scripts/db-migrate.js"]

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deploy --chown=node:node /out /app
USER node
EXPOSE 8080 9464
# node is PID 1 and gets SIGTERM directly, for a graceful stop.
CMD ["node", "--enable-source-maps", "dist/main.js"]
