package io.jdat.conformance;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Marks a conformance test: it runs once for each IA of {@link Transports} (every transport and configuration),
 * with that {@link Transports.IaUnderTest} as its argument, named after the IA.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ParameterizedTest(name = "{0}")
@MethodSource("io.jdat.conformance.Transports#all")
public @interface EveryTransport {
}
