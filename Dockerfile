# syntax=docker/dockerfile:1.7
# One image recipe for every app:  docker build --build-arg APP=tokens -t bastion-tokens .
# The same image runs migrations:  docker run bastion-tokens node scripts/db-migrate.js
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
 && pnpm build \
 && pnpm prune --prod --ignore-scripts \
 && rm -rf apps/*/src libs/*/src test bench docs

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ARG APP
ENV NODE_ENV=production APP=${APP}
WORKDIR /app
COPY --from=build --chown=node:node /repo /app
USER node
EXPOSE 8080
# Exec form via sh so $APP is read at run time; SIGTERM reaches node (exec) for a graceful stop.
CMD ["sh", "-c", "exec node --enable-source-maps apps/${APP}/dist/main.js"]
