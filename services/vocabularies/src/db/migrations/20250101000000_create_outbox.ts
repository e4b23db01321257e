/** The transactional outbox of the vocabularies service (`rdm.vocabularies.vocabulary.loaded`). */
export { outboxMigration as up } from '@rdm/platform';
