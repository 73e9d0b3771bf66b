/**
 * @since 0.1.0
 */
export * as RedisClient from "./RedisClient.js"

/**
 * @since 0.1.0
 */
export * as RedisKeyValueStore from "./RedisKeyValueStore.js"

/**
 * @since 0.1.0
 */
export * as RedisLock from "./RedisLock.js"

/**
 * @since 0.1.0
 */
export * as RedisTokenStore from "./RedisTokenStore.js"
