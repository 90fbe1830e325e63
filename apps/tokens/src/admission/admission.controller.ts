import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  DeleteRegistrationCommand,
  ListRegistrationsCommand,
  RegisterSiteCommand,
  RegistrationsByTokenCommand,
  TokenRpc,
} from '@bastion/contracts';
import { Handles } from '@bastion/messaging';
import { AdmissionService } from './admission.service';

@Controller()
export class AdmissionController {
  constructor(private readonly admission: AdmissionService) {}

  @Handles(TokenRpc.register)
  register(@Payload() cmd: RegisterSiteCommand) {
    return this.admission.register(cmd);
  }

  @Handles(TokenRpc.listRegistrations)
  list(@Payload() cmd: ListRegistrationsCommand) {
    return this.admission.list(cmd);
  }

  @Handles(TokenRpc.registrationsByToken)
  byToken(@Payload() cmd: RegistrationsByTokenCommand) {
    return this.admission.byToken(cmd);
  }

  @Handles(TokenRpc.deleteRegistration)
  delete(@Payload() cmd: DeleteRegistrationCommand) {
    return this.admission.deleteRegistration(cmd);
  }
}
