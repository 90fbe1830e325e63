/** The component named in system_metadata.creator_class of what this service writes. */
export const CREATOR_CLASS = 'bastion-tokens';
