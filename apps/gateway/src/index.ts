export { createGateway } from './bootstrap';
export { GatewayConfig } from './config';
