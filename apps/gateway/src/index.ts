export { createGateway, EARLY_REFUSAL_HOLD_MS } from './bootstrap';
export { GatewayConfig } from './config';
